"""Every shell example of the README and docs/*.md runs as written against a server
started as the quickstart starts it, and prints what the page shows; a block that cannot
run says why (`<!-- not-run: reason -->`). The rules: tests/docs/examples.py."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.docs import examples
from tests.docs.examples import Block, Served
from tests.helpers import server_process

KEY = re.compile(r"export AGENTD_API_KEY=(agd_\S+)")
SHELL = [
    b
    for b in examples.all_blocks()
    if b.language in ("sh", "console") and not b.not_run and not b.walkthrough
]
"""The shell blocks run on their own (a walk-through's: tests/docs/test_walkthroughs.py)."""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("demo")
    with server_process(folder, examples.SERVED_ENV, options=("--demo",)) as server:
        key = KEY.search(server.printed)
        assert key, server.printed
        yield Served(server.address, key.group(1), examples.a2a_http_address(server.log()))


def test_every_example_is_run_or_says_why_not() -> None:
    unrun = [b.name for b in examples.all_blocks() if b.example and b.language not in
             examples.RUN and not b.not_run]  # fmt: skip
    assert unrun == [], "give these blocks a <!-- not-run: reason --> line before their fence"
    assert len(SHELL) >= 3
    assert {b.page for b in SHELL} >= {"README.md"}


@pytest.mark.parametrize("block", SHELL, ids=[b.name for b in SHELL])
def test_a_shell_example_runs_as_written(block: Block, served: Served, tmp_path: Path) -> None:
    assert examples.problems(block, served, tmp_path) == []


def _edited(block: Block, old: str, new: str) -> Block:
    assert old in block.code
    return Block(block.page, block.line, block.language, block.code.replace(old, new, 1), "")


def test_the_checker_fails_when_an_example_is_edited_to_be_wrong(
    served: Served, tmp_path: Path
) -> None:
    quickstart = next(b for b in SHELL if b.code.startswith("$ .venv/bin/agentd exec"))
    grpcurl = next(b for b in SHELL if "CallTool" in b.code and b.page == "README.md")
    a2a = next(b for b in SHELL if "SendMessage" in b.code and b.page == "docs/a2a.md")
    wrong = [
        _edited(a2a, '-H "A2A-Version: 1.0" ', ""),  # without it the SDK refuses the call
        _edited(a2a, '"total_tokens": 30.0', '"total_tokens": 30'),  # a Struct's numbers
        _edited(grpcurl, '"call_id"', '"callId"'),  # camelCase where the server says call_id
        _edited(grpcurl, '"text": "18"', '"text": "19"'),  # a wrong result
        _edited(grpcurl, "Code: InvalidArgument", "Code: NotFound"),
        _edited(quickstart, "--follow", "--follow --no-such-flag"),  # the command fails
        _edited(quickstart, "completed", "failed"),
    ]
    for index, block in enumerate(wrong):
        assert examples.problems(block, served, tmp_path / str(index)) != [], block.code


def test_a_fence_of_four_backticks_holds_a_fence_of_three() -> None:
    text = "````markdown\n```sh\nx\n```\n````\n<!-- not-run: why -->\n```sh\ny\n```\n"
    found = examples.blocks_of(text, "page.md")
    assert [(b.line, b.language, b.not_run) for b in found] == [
        (1, "markdown", ""),
        (7, "sh", "why"),
    ]


def test_the_transcript_reader() -> None:
    assert examples.shown_in('{ "status": "SERVING" }', '{\n  "status": "SERVING"\n}') == ""
    assert examples.shown_in('{ "id": "call_…", "n": 2 }', '{"id": "call_9f", "n": 2}') == ""
    assert examples.shown_in('{ "a": 1, …, "c": 3 }', '{"a": 1, "b": 2, "c": 3}') == ""
    assert examples.shown_in('{ "a": 1, "c": 3 }', '{"a": 1, "b": 2, "c": 3}') == "c"
    assert examples.shown_in('"camelCase": 1', '"camel_case": 1') == "camelCase"
    # the words between two gaps are found together, not at their first word's first place
    assert examples.shown_in("…\n#… final_answer\n42", "#1 start\n#2 final_answer\n42") == ""
    assert examples.shown_in('… "agent": "lead@1"', '"a lead agent", "agent": "lead@1"') == ""
    assert examples.shown_in("… #… final_answer 43", "#1 start #2 final_answer 42") == "43"
    steps = examples.transcript("$ a \\\n  b\nout\n\n$ c\n")
    assert steps == [examples.Step("a \\\n  b", "out\n"), examples.Step("c", "")]
