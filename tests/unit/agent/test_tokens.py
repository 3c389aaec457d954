"""Token counting: OpenAI's encodings loaded offline from the ranks `make` puts in
var/tiktoken (checked against tiktoken's digests), an estimate for other models."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agent.llm.base import Message, ToolCall
from agent.llm.encodings import SOURCES, Encodings, encoding_for_model
from agent.llm.tokens import ESTIMATE, message_tokens

ROOT = Path(__file__).resolve().parents[3]
RANKS = ROOT / "var" / "tiktoken"


@pytest.fixture(scope="module")
def encodings() -> Encodings:
    for source in SOURCES.values():
        assert (RANKS / source.cache_name).is_file(), "run `make` (scripts/tokenizer_ranks.py)"
    return Encodings(RANKS)


@pytest.mark.parametrize(
    ("model", "encoding"),
    [
        ("gpt-4o", "o200k_base"),
        ("gpt-4o-mini-2024-07-18", "o200k_base"),
        ("gpt-4.1-nano", "o200k_base"),
        ("o3-mini", "o200k_base"),
        ("gpt-5", "o200k_base"),
        ("openai/gpt-4o", "o200k_base"),
        ("gpt-4", "cl100k_base"),
        ("gpt-4-turbo", "cl100k_base"),
        ("gpt-3.5-turbo", "cl100k_base"),
        ("qwen3:8b", None),
        ("llama-3.1-70b", None),
        ("fake-model", None),
    ],
)
def test_models_map_to_their_encodings(model: str, encoding: str | None) -> None:
    assert encoding_for_model(model) == encoding


def test_known_token_counts_of_both_encodings(encodings: Encodings) -> None:
    o200k = encodings.for_model("gpt-4o-mini")
    cl100k = encodings.for_model("gpt-4")
    assert (o200k.name, cl100k.name) == ("o200k_base", "cl100k_base")
    # Token ids published with tiktoken: "hello world" and its README's example.
    cl = cl100k._encoding  # type: ignore[attr-defined]
    assert cl.encode("hello world") == [15339, 1917]
    assert cl.encode("tiktoken is great!") == [83, 1609, 5963, 374, 2294, 0]
    assert o200k._encoding.encode("hello world") == [24912, 2375]  # type: ignore[attr-defined]
    assert cl100k.count("hello world") == o200k.count("hello world") == 2
    assert o200k.count("") == 0
    assert o200k.count("<|endoftext|>") > 1  # special tokens in text are plain text


def test_the_same_encoding_as_tiktoken_builds_from_its_cache(
    encodings: Encodings, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tiktoken
    import tiktoken_ext.openai_public as public

    # The folder is a valid tiktoken cache: tiktoken's own constructor reads it (its
    # digest check passes, so it never tries to download) and gives the same encoding.
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(RANKS))
    for name, build in (("o200k_base", public.o200k_base), ("cl100k_base", public.cl100k_base)):
        theirs = tiktoken.Encoding(**build())
        ours = encodings.for_model("gpt-4o" if name == "o200k_base" else "gpt-4")
        sample = "A conversation: turn 1, 2 and 3 — with ünïcödé and\n\n  spaces."
        assert ours._encoding.encode(sample) == theirs.encode(sample)  # type: ignore[attr-defined]
        assert ours._encoding._pat_str == theirs._pat_str  # type: ignore[attr-defined]
        assert ours._encoding._special_tokens == theirs._special_tokens  # type: ignore[attr-defined]
        assert ours._encoding.n_vocab == theirs.n_vocab  # type: ignore[attr-defined]


def test_other_models_and_missing_or_altered_ranks_are_estimated(tmp_path: Path) -> None:
    assert Encodings(RANKS).for_model("qwen3:8b") is ESTIMATE
    assert Encodings(tmp_path).for_model("gpt-4o") is ESTIMATE  # no ranks there
    source = SOURCES["o200k_base"]
    shutil.copy(RANKS / source.cache_name, tmp_path / source.cache_name)
    with (tmp_path / source.cache_name).open("ab") as file:
        file.write(b"AAAA 200000\n")  # not OpenAI's file any more
    assert Encodings(tmp_path).for_model("gpt-4o") is ESTIMATE
    assert ESTIMATE.count("abcdefgh") == 2
    assert ESTIMATE.count("abcdefghi") == 3


def test_a_message_costs_its_text_its_calls_and_framing(encodings: Encodings) -> None:
    counter = encodings.for_model("gpt-4o")
    plain = Message("user", "hello world")
    assert message_tokens(plain, counter) == 4 + 2
    call = ToolCall("c1", "calculator", '{"expression": "2+2"}')
    calling = Message("assistant", "", tool_calls=(call,))
    expected = 4 + counter.count("calculator") + counter.count('{"expression": "2+2"}')
    assert message_tokens(calling, counter) == expected
