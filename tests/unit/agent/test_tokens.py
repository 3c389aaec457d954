"""Token counting: OpenAI's encodings loaded offline from the ranks `make` puts in
var/tiktoken (checked against tiktoken's digests), an estimate for other models."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from agent.llm.window.encodings import SOURCES, Encodings, encoding_for_model
from agent.llm.window.tokens import ESTIMATE, message_tokens
from records.messages import Message, ToolCall
from tests.helpers import RANKS, ROOT

LOADERS = {"get_encoding", "encoding_for_model", "list_encoding_names", "load_tiktoken_bpe",
           "read_file", "read_file_cached", "data_gym_to_mergeable_bpe_ranks"}  # fmt: skip
"""tiktoken's loaders, which download the ranks a cache lacks."""


def _loader_calls(path: Path) -> list[str]:
    """Uses of tiktoken's downloading loaders in `path` (code, not its prose)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tiktoken"):
            names = {alias.name for alias in node.names} & LOADERS
            found += [f"{path.relative_to(ROOT)}:{node.lineno}: import {n}" for n in names]
        elif isinstance(node, ast.Attribute) and node.attr in LOADERS:
            base = ast.unparse(node.value)
            if "tiktoken" in base or "openai_public" in base:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
    return found


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
    import tiktoken.load
    import tiktoken_ext.openai_public as public

    def no_download(blobpath: str) -> bytes:
        if "://" in blobpath:
            raise AssertionError(f"tiktoken would download {blobpath}")
        with open(blobpath, "rb") as file:
            return file.read()

    # The folder is a valid tiktoken cache: tiktoken's own constructor reads it (its
    # digest check passes, so it never tries to download; here it could not) and gives
    # the same encoding.
    monkeypatch.setattr(tiktoken.load, "read_file", no_download)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(RANKS))
    builders = (("o200k_base", public.o200k_base), ("cl100k_base", public.cl100k_base))
    for name, build in builders:
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


def test_encodings_load_at_start_up_and_say_once_whether_counts_are_exact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agent.llm.window.encodings as module

    said: list[tuple[str, str, dict[str, object]]] = []

    class Log:
        def info(self, event: str, **fields: object) -> None:
            said.append(("info", event, fields))

        def warning(self, event: str, **fields: object) -> None:
            said.append(("warning", event, fields))

    monkeypatch.setattr(module, "log", Log())
    assert Encodings(RANKS).load() == ["o200k_base", "cl100k_base"]
    assert Encodings(tmp_path).load() == []
    assert [(level, event) for level, event, _ in said] == [
        ("info", "token counts: exact for OpenAI's models, estimated for others"),
        ("warning", "token counts are estimated (no verified tokenizer ranks)"),
    ]
    assert said[1][2]["missing"] == ["o200k_base", "cl100k_base"]


def test_missing_ranks_are_said_once_and_only_for_a_model_that_needs_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The demo's scripted model (no OpenAI encoding) needs no ranks: start-up says so at
    info. The first task of a gpt-4o agent then warns, once; a server of a gpt-4o model
    warns at start-up, and not again when its tasks count."""
    import agent.llm.window.encodings as module

    warned: list[tuple[str, dict[str, object]]] = []

    class Log:
        def info(self, event: str, **fields: object) -> None:
            pass

        def warning(self, event: str, **fields: object) -> None:
            warned.append((event, fields))

    monkeypatch.setattr(module, "log", Log())
    demo = Encodings(tmp_path)
    assert demo.load([]) == []
    assert warned == []
    assert demo.for_model("agentd-demo") is ESTIMATE
    assert demo.for_model("gpt-4o") is ESTIMATE
    assert demo.for_model("gpt-4o-mini") is ESTIMATE
    assert [(event, fields["encoding"]) for event, fields in warned] == [
        ("no tokenizer ranks: tokens are estimated", "o200k_base")
    ]
    warned.clear()
    served = Encodings(tmp_path)
    served.load(["o200k_base"])
    assert served.for_model("gpt-4o") is ESTIMATE
    assert [(event, fields["missing"]) for event, fields in warned] == [
        ("token counts are estimated (no verified tokenizer ranks)", ["o200k_base"])
    ]


def test_make_says_nothing_of_ranks_it_cannot_build(tmp_path: Path) -> None:
    """`make run|demo|bench` try to build the ranks (--best-effort); without npm's package
    they leave the saying to the server (above), so the warning is not printed twice."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "tokenizer_ranks.py"), "--best-effort",
         "--source", str(tmp_path / "no-js-tiktoken"), "--to", str(tmp_path / "ranks")],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    strict = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "tokenizer_ranks.py"),
         "--source", str(tmp_path / "no-js-tiktoken"), "--to", str(tmp_path / "ranks")],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert strict.returncode == 1
    assert "make setup" in strict.stderr


def test_loading_the_ranks_never_goes_through_tiktoken_s_downloading_loaders(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import tiktoken.load

    def refuse(*args: object, **kwargs: object) -> bytes:
        raise AssertionError("tiktoken's loader was called")

    monkeypatch.setattr(tiktoken.load, "read_file", refuse)
    monkeypatch.setattr(tiktoken.load, "read_file_cached", refuse)
    monkeypatch.setattr(tiktoken.load, "load_tiktoken_bpe", refuse)
    source = SOURCES["cl100k_base"]
    shutil.copy(RANKS / source.cache_name, tmp_path / source.cache_name)  # built afresh
    counter = Encodings(tmp_path).for_model("gpt-4")
    assert (counter.name, counter.count("hello world")) == ("cl100k_base", 2)


def test_no_code_asks_tiktoken_for_an_encoding_by_name() -> None:
    """tiktoken.get_encoding and friends download missing ranks from outside this
    machine; nothing in the repository may call them (this test excepted)."""
    found = []
    for folder in ("agent", "server", "stores", "tools", "core", "clients", "bench",
                   "scripts", "tests", "audit", "auth"):  # fmt: skip
        for path in (ROOT / folder).rglob("*.py"):
            if path != Path(__file__).resolve():
                found += _loader_calls(path)
    assert found == []
