"""The knowledge store contract (stores/knowledge/base.py), on every backend: in process,
SQLite, and PostgreSQL with pgvector."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import text

from agent.knowledge.memories import new_item_id, reindex
from agent.llm.embeddings import HashEmbedder
from core.errors import EmbeddingModelChangedError
from records.knowledge.items import EmbeddingSpace, Item, Scope, content_hash
from records.paging import KeyCursor
from stores.knowledge.base import KnowledgeStore
from tests.contract.knowledge_backends import BACKENDS, knowledge_store
from tests.paging import every_page, page_sizes

EMBED = HashEmbedder(256)
SPACE = EMBED.space


@pytest.fixture(params=BACKENDS)
async def store(
    request: pytest.FixtureRequest, tmp_path: Path, pgvector_socket: str
) -> AsyncIterator[KnowledgeStore]:
    async with knowledge_store(request.param, tmp_path, pgvector_socket) as made:
        yield made


def memory(tenant: str, user: str, text_: str, namespace: str = "default") -> Item:
    return Item(
        new_item_id("mem_"), tenant, "memory", user, namespace, text_, content_hash(text_),
        datetime.now(UTC),
    )  # fmt: skip


def chunk(tenant: str, kb: str, document: str, index: int, text_: str) -> Item:
    return Item(
        new_item_id("chk_"), tenant, "chunk", "", kb, text_, content_hash(text_),
        datetime.now(UTC), document, index,
    )  # fmt: skip


async def add(store: KnowledgeStore, *items: Item) -> list[Item]:
    vectors = await EMBED.embed([i.text for i in items])
    return await store.add(items, vectors, SPACE)


async def search(
    store: KnowledgeStore, scope: Scope, query: str, top_k: int = 5, threshold: float = -1.0,
    hybrid: bool = False,
) -> list[str]:  # fmt: skip
    vector = (await EMBED.embed([query]))[0]
    hits = await store.search(
        scope, vector, top_k=top_k, threshold=threshold, query_text=query if hybrid else "",
        space=SPACE,
    )  # fmt: skip
    return [h.item.text for h in hits]


async def test_the_nearest_memory_comes_first_and_the_threshold_cuts(store: KnowledgeStore) -> None:
    await add(
        store,
        memory("acme", "alice", "Alice's favourite colour is green"),
        memory("acme", "alice", "Alice lives in Lisbon, Portugal"),
        memory("acme", "alice", "The invoice total was 42 euros"),
    )
    scope = Scope("acme", "memory", "alice")
    found = await search(store, scope, "where does Alice live?")
    assert found[0] == "Alice lives in Lisbon, Portugal"
    assert len(found) == 3
    assert await search(store, scope, "quantum chromodynamics lattice", threshold=0.5) == []
    assert await search(store, scope, "Alice lives in Lisbon", top_k=1) == [
        "Alice lives in Lisbon, Portugal"
    ]


async def test_no_user_or_tenant_sees_another_ones(store: KnowledgeStore) -> None:
    await add(
        store,
        memory("acme", "alice", "alice likes tea"),
        memory("acme", "bob", "bob likes tea"),
        memory("globex", "alice", "globex alice likes tea"),
    )
    assert await search(store, Scope("acme", "memory", "alice"), "likes tea") == ["alice likes tea"]
    assert await search(store, Scope("acme", "memory", "bob"), "likes tea", hybrid=True) == [
        "bob likes tea"
    ]
    own = {
        ("acme", "alice"): ["alice likes tea"],
        ("globex", "alice"): ["globex alice likes tea"],
        ("acme", "bob"): ["bob likes tea"],
    }
    for tenant, user in [*own, *own]:  # a statement kept per scope shape carries no values
        found = await search(store, Scope(tenant, "memory", user), "likes tea", hybrid=True)
        assert found == own[(tenant, user)]
    assert [i.text for i in (await store.page(Scope("globex", "memory", "alice"))).items] == [
        "globex alice likes tea"
    ]
    assert await store.count(Scope("acme", "memory")) == 2
    assert await store.delete(Scope("acme", "memory", "alice")) == 1
    assert await store.count(Scope("acme", "memory", "bob")) == 1
    assert await store.count(Scope("globex", "memory", "alice")) == 1
    assert await search(store, Scope("acme", "memory", "alice"), "likes tea") == []


async def test_namespaces_and_ids_narrow_a_scope(store: KnowledgeStore) -> None:
    first, _second = await add(
        store,
        memory("acme", "alice", "prefers short answers", "prefs"),
        memory("acme", "alice", "works on the billing project", "agent:support"),
    )
    assert await search(store, Scope("acme", "memory", "alice", ("prefs",)), "answers") == [
        "prefers short answers"
    ]
    only = Scope("acme", "memory", "alice", item_ids=(first.item_id,))
    assert [i.item_id for i in (await store.page(only)).items] == [first.item_id]
    assert await search(store, only, "billing project") == ["prefers short answers"]


async def test_the_same_memory_is_kept_once(store: KnowledgeStore) -> None:
    first = await add(store, memory("acme", "alice", "Likes  GREEN tea"))
    again = await add(
        store,
        memory("acme", "alice", "likes green tea"),
        memory("acme", "alice", "likes green tea"),
    )
    assert [i.item_id for i in again] == [first[0].item_id] * 2
    other_user = await add(store, memory("acme", "bob", "likes green tea"))
    assert other_user[0].item_id != first[0].item_id
    assert await store.count(Scope("acme", "memory")) == 2


async def test_listing_pages_by_id(store: KnowledgeStore) -> None:
    made = await add(store, *(memory("acme", "alice", f"fact number {n}") for n in range(5)))
    await add(store, memory("acme", "bob", "fact number 9"), memory("globex", "alice", "fact"))
    alice = Scope("acme", "memory", "alice")
    for size in (1, 2, 5, 6):
        pages = await _pages(store, alice, size)
        assert [len(p) for p in pages] == page_sizes(5, size)
        assert [i.item_id for p in pages for i in p] == sorted(i.item_id for i in made)
    first = await store.page(alice, size=2)
    assert first.next == KeyCursor(0, first.items[-1].item_id)
    assert (await store.page(alice, size=5)).next is None


async def _pages(store: KnowledgeStore, scope: Scope, size: int) -> list[tuple[Item, ...]]:
    return await every_page(lambda after: store.page(scope, size=size, after=after))


async def test_hybrid_search_fuses_keywords_above_the_threshold(store: KnowledgeStore) -> None:
    await add(
        store,
        chunk("acme", "kb1", "doc1", 0, "The warranty period of the X200 router is 24 months."),
        chunk("acme", "kb1", "doc1", 1, "Routers should be placed away from microwaves."),
        chunk("acme", "kb1", "doc2", 0, "Our office is closed on public holidays."),
        chunk("acme", "kb2", "doc3", 0, "The X200 warranty in kb2 is secret."),
    )
    scope = Scope("acme", "chunk", namespaces=("kb1",))
    vector = (await EMBED.embed(["X200 warranty months"]))[0]
    hits = await store.search(
        scope, vector, top_k=2, threshold=0.2, query_text="X200 warranty months", space=SPACE
    )
    assert [h.item.document_id for h in hits][:1] == ["doc1"]
    assert hits[0].item.chunk_index == 0
    assert "keyword" in hits[0].matched
    assert "vector" in hits[0].matched
    assert all(h.similarity >= 0.2 for h in hits)
    assert hits == sorted(hits, key=lambda h: -h.fused)
    off_topic = (await EMBED.embed(["penguins of antarctica"]))[0]
    assert (
        await store.search(
            scope, off_topic, top_k=5, threshold=0.7, query_text="penguins", space=SPACE
        )
        == []
    )
    assert await store.delete(Scope("acme", "chunk", document_id="doc1")) == 2
    assert await store.count(Scope("acme", "chunk")) == 2


async def test_another_embedding_space_is_refused_until_reindexed(store: KnowledgeStore) -> None:
    await add(store, memory("acme", "alice", "alice likes tea"))
    assert await store.space() == SPACE
    other = HashEmbedder(32, "other-model")
    vector = (await other.embed(["tea"]))[0]
    with pytest.raises(EmbeddingModelChangedError) as refused:
        await store.search(Scope("acme", "memory", "alice"), vector, top_k=1, space=other.space)
    assert "other-model (32 dimensions)" in refused.value.message
    with pytest.raises(EmbeddingModelChangedError):
        await store.add([memory("acme", "alice", "x")], vector.reshape(1, -1), other.space)
    with pytest.raises(EmbeddingModelChangedError):
        await store.check_space(EmbeddingSpace(SPACE.model, 65))
    assert await reindex(store, other, batch=1) == 1
    assert await store.space() == other.space
    hits = await store.search(Scope("acme", "memory", "alice"), vector, top_k=1, space=other.space)
    assert [h.item.text for h in hits] == ["alice likes tea"]
    assert hits[0].similarity > 0.3


async def test_the_first_stored_vector_fixes_the_space(store: KnowledgeStore) -> None:
    other = HashEmbedder(32, "other-model")
    alice = Scope("acme", "memory", "alice")
    await store.check_space(other.space)  # asks, records nothing
    assert await store.space() is None
    with pytest.raises(ValueError, match="vector"):  # a failed first add
        await store.add([memory("acme", "alice", "x")], np.zeros((0, 32), np.float32), other.space)
    assert await store.space() is None
    await store.set_space(other.space)  # a record without a vector, as a failed use once left
    assert await store.space() is None
    assert await search(store, alice, "tea") == []  # not refused: nothing holds it
    await add(store, memory("acme", "alice", "alice likes tea"))
    assert await store.space() == SPACE
    assert await search(store, alice, "tea") == ["alice likes tea"]
    with pytest.raises(EmbeddingModelChangedError):
        await store.check_space(other.space)
    assert await store.delete(alice) == 1  # empty again: the next vector fixes it anew
    vectors = await other.embed(["bob likes coffee"])
    await store.add([memory("acme", "bob", "bob likes coffee")], vectors, other.space)
    assert await store.space() == other.space


async def test_first_adds_of_two_spaces_at_once_fix_one_of_them(store: KnowledgeStore) -> None:
    other = HashEmbedder(32, "other-model")
    ours = [memory("acme", f"user{n}", f"fact {n}") for n in range(4)]
    theirs = [memory("acme", f"user{n}", f"other fact {n}") for n in range(4)]
    vectors = await other.embed([i.text for i in theirs])
    results = await asyncio.gather(
        *(add(store, item) for item in ours),
        *(store.add([i], vectors[n : n + 1], other.space) for n, i in enumerate(theirs)),
        return_exceptions=True,
    )
    won = SPACE if not isinstance(results[0], BaseException) else other.space
    assert await store.space() == won
    for result in results:  # each add either stored, or was refused for the other space
        assert not isinstance(result, BaseException) or isinstance(
            result, EmbeddingModelChangedError
        ), result
    stored = await store.count(Scope("acme", "memory"))
    assert stored == sum(1 for r in results if not isinstance(r, BaseException))


async def test_a_failed_add_stores_nothing(store: KnowledgeStore) -> None:
    items = [memory("acme", "alice", "one"), memory("acme", "alice", "two")]
    with pytest.raises(ValueError, match="vector"):
        await store.add(items, np.zeros((1, SPACE.dimensions), np.float32), SPACE)
    assert await store.count(Scope("acme", "memory")) == 0


async def test_deleting_a_user_leaves_no_row_vector_or_keyword_entry(
    store: KnowledgeStore,
) -> None:
    await add(store, memory("acme", "alice", "alice secret one"), memory("acme", "bob", "bob fact"))
    await search(store, Scope("acme", "memory", "alice"), "secret", hybrid=True)  # fills caches
    assert await store.delete(Scope("acme", "memory", "alice")) == 1
    assert await search(store, Scope("acme", "memory", "alice"), "secret", hybrid=True) == []
    assert await leftovers(store, "alice") == 0
    assert await leftovers(store, "bob") > 0


async def leftovers(store: KnowledgeStore, user: str) -> int:
    """Rows, vectors, keyword entries and cache entries of `user` anywhere in the store."""
    engine = getattr(store, "_engine", None)
    if engine is None:  # in process: its dicts are all there is
        kept = getattr(store, "_items", {})
        return sum(1 for i in kept.values() if i.user == user)
    found = 0
    async with engine.connect() as connection:
        found += await connection.scalar(
            text("SELECT count(*) FROM knowledge_items WHERE user_id = :u"), {"u": user}
        )
        if engine.dialect.name == "postgresql":
            found += await connection.scalar(
                text(
                    "SELECT count(*) FROM knowledge_keywords k WHERE words @@ to_tsquery("
                    "'simple', :u) OR NOT EXISTS (SELECT 1 FROM knowledge_items i "
                    "WHERE i.item_id = k.item_id)"
                ),
                {"u": user},
            )
        if engine.dialect.name == "sqlite":
            found += await connection.scalar(
                text("SELECT count(*) FROM knowledge_items_fts WHERE text LIKE :u"),
                {"u": f"%{user}%"},
            )
    for cached in getattr(store, "_cache", {}).values():
        found += sum(1 for i in cached.items if i.user == user)
    return int(found)


CJK_CHUNKS = {
    "zh": "北京是中华人民共和国的首都，也是全国的政治和文化中心。",
    "ja": "東京タワーの高さは三百三十三メートルで、展望台から富士山が見えます。",
    "ko": "우리는 서울에서 맛있는 김치찌개를 먹었습니다.",
    "en": "The warranty period of the X200 router is 24 months.",
}


@pytest.mark.parametrize(
    ("query", "document"),
    [
        ("中国的首都在哪里", "zh"),
        ("東京タワーの高さ", "ja"),
        ("김치찌개 맛집", "ko"),
        ("都", "zh"),  # one character
        ("X200 warranty", "en"),
    ],
)
async def test_keyword_search_finds_chinese_japanese_and_korean_text(
    store: KnowledgeStore, query: str, document: str
) -> None:
    await add(
        store,
        *(chunk("acme", "kb", name, 0, body) for name, body in CJK_CHUNKS.items()),
        chunk("globex", "kb", "zh", 0, CJK_CHUNKS["zh"]),
    )
    vector = (await EMBED.embed([query]))[0]
    hits = await store.search(
        Scope("acme", "chunk", namespaces=("kb",)), vector, top_k=4, query_text=query, space=SPACE
    )
    by_keyword = [h.item.document_id for h in hits if "keyword" in h.matched]
    assert by_keyword == [document]
    assert hits[0].item.document_id == document
    assert hits[0].item.tenant == "acme"
