"""A newcomer's path: `make demo` (what it runs: `agentd serve --demo`), then the teams
walk-through (docs/teams.md) and the knowledge one (docs/memory-and-knowledge.md), each
block in the page's order, in one folder that holds `.venv` and `docs` as the checkout's
root does, with nothing set but the demo's address and key. Each prints what its page
shows: the lead's children listed, the support agent's answer with its citation. The
fake model's replies are the pages' own scripts (docs/examples/*/fake-llm.json), which
the demo plays (server/commands/demo.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agent.llm.fakes.script import Script
from server.commands.demo import DEMO_SCRIPT, EXAMPLES, WALKTHROUGHS, demo_script
from tests.docs import examples
from tests.docs.examples import Block, Served
from tests.helpers import server_process

KEY = re.compile(r"export AGENTD_API_KEY=(agd_\S+)")
PAGES = {"teams": "docs/teams.md", "knowledge": "docs/memory-and-knowledge.md"}


def walkthrough(name: str) -> list[Block]:
    return [b for b in examples.all_blocks() if b.walkthrough == name]


def test_each_walkthrough_is_on_its_page_and_shows_what_it_promises() -> None:
    named = {b.walkthrough for b in examples.all_blocks() if b.walkthrough}
    assert named == set(PAGES) == set(WALKTHROUGHS)
    for name, page in PAGES.items():
        blocks = walkthrough(name)
        assert {b.page for b in blocks} == {page}
        assert all(b.language == "console" and examples.transcript(b.code) for b in blocks)
    teams = "".join(b.code for b in walkthrough("teams"))
    assert all(shown in teams for shown in ('"children"', "researcher@1", "writer@1"))
    knowledge = "".join(b.code for b in walkthrough("knowledge"))
    assert '"citations"' in knowledge
    assert '"knowledge_base_id": "handbook"' in knowledge


def test_the_demo_plays_the_walkthroughs_scripts_before_its_own() -> None:
    played = demo_script()
    Script.parse(played)  # a script the fake server plays
    theirs = [
        reply
        for name in WALKTHROUGHS
        for reply in json.loads((EXAMPLES / name / "fake-llm.json").read_text())["replies"]
    ]
    assert theirs
    assert all(reply.get("match") for reply in theirs)  # only their agents'
    assert played["replies"] == [*theirs, *DEMO_SCRIPT["replies"]]
    for name in WALKTHROUGHS:
        Script.load(EXAMPLES / name / "fake-llm.json")  # each runs with `agentd fake-llm`


def test_an_installed_demo_without_the_docs_plays_its_own_script(tmp_path: Path) -> None:
    assert demo_script(tmp_path / "no-docs") == DEMO_SCRIPT
    broken = tmp_path / "docs" / "teams"
    broken.mkdir(parents=True)
    (broken / "fake-llm.json").write_text('[{"text": "a list, not an object"}]')
    with pytest.raises(ValueError, match=r"fake-llm\.json"):
        demo_script(tmp_path / "docs")


def test_a_newcomer_runs_both_walkthroughs_against_make_demo(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    with server_process(tmp_path_factory.mktemp("demo"), options=("--demo",)) as server:
        key = KEY.search(server.printed)
        assert key, server.printed
        served = Served(server.address, key.group(1))
        checkout = tmp_path_factory.mktemp("checkout")  # one terminal, at the root
        for name in ("teams", "knowledge"):
            for block in walkthrough(name):
                assert examples.problems(block, served, checkout) == []
