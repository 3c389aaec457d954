"""Chunking text without spaces: each Chinese, Japanese or Korean character is a token,
so a Chinese document of thousands of characters becomes several chunks of at most
`chunk_tokens` characters that overlap, instead of one giant chunk (before, the whole
document was one whitespace-separated "word")."""

from __future__ import annotations

import itertools

from agent.knowledge.documents import KnowledgeBases, chunks
from agent.llm.embeddings import HashEmbedder
from records.knowledge.items import Scope
from stores.knowledge.memory import InMemoryKnowledgeStore

SENTENCES = [
    "人工智能是计算机科学的一个分支，研究如何让机器模拟人类的智能。",
    "机器学习通过数据训练模型，使计算机能够从经验中改进。",
    "深度学习使用多层神经网络，在图像识别和语音识别方面取得了突破。",
    "自然语言处理让计算机理解和生成人类语言，例如机器翻译和问答系统。",
    "知识库把文档切成片段，检索时返回与问题最相关的片段并注明出处。",
]


def chinese_document(characters: int) -> str:
    """Numbered paragraphs of the sentences above (numbers in Chinese numerals, so that
    every character is one token)."""
    text, n = "", 0
    while len(text) < characters:
        number = "".join("〇一二三四五六七八九"[int(d)] for d in str(n))
        text += f"第{number}段：" + SENTENCES[n % len(SENTENCES)]
        n += 1
    return text


def test_a_chinese_document_is_cut_into_bounded_overlapping_chunks() -> None:
    text = chinese_document(5000)
    assert " " not in text
    assert len(text) >= 5000
    made = list(chunks(text, 300, 40))
    assert len(made) >= 5000 // 260  # every 260 new characters start a chunk
    assert all(len(c) <= 300 for c in made)
    assert all(len(c) == 300 for c in made[:-1])
    for before, after in itertools.pairwise(made):
        assert after[:40] == before[-40:]  # the overlap, character for character
    # nothing lost, nothing spaced out: the chunks without their overlaps are the text
    assert made[0] + "".join(c[40:] for c in made[1:]) == text


def test_mixed_scripts_keep_their_spacing_and_latin_words_whole() -> None:
    text = "東京タワーは333メートルです。 The tower opened in 1958. 서울 타워는 남산에 있다"
    assert list(chunks(text, 8, 2)) == [
        "東京タワーは333メ",  # "333" is one token, as a Latin word is
        "333メートルです。",
        "す。 The tower opened in 1958. 서",
        "1958. 서울 타워는 남산",
        "남산에 있다",
    ]


def test_english_chunks_are_as_before() -> None:
    words = [f"w{n}" for n in range(25)]
    assert list(chunks("  ".join(words) + "\n", 10, 3)) == [
        " ".join(words[0:10]),
        " ".join(words[7:17]),
        " ".join(words[14:24]),
        " ".join(words[21:25]),
    ]


async def test_an_added_chinese_document_makes_several_chunks() -> None:
    store = InMemoryKnowledgeStore()
    kb = KnowledgeBases(store, HashEmbedder(64), chunk_tokens=300, overlap=40)
    text = chinese_document(5000)
    _, count = await kb.add_document("acme", "kb", text.encode(), "text/plain")
    assert count == len(list(chunks(text, 300, 40))) >= 19
    stored = (await store.page(Scope("acme", "chunk"), size=100)).items
    assert max(len(i.text) for i in stored) == 300
