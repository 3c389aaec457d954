"""Every agent file shown in the READMEs and docs/*.md (a `yaml` block that starts with
`id:`) loads as an agent file does, so the keys the pages teach are the keys agentd reads."""

from __future__ import annotations

import pytest
import yaml

from records.agents.definition import parse_agent
from tests.docs import examples

SHOWN = [
    block
    for block in examples.all_blocks()
    if block.language == "yaml" and block.code.startswith("id:")
]


def test_the_pages_show_agent_files() -> None:
    pages = {block.page for block in SHOWN}
    assert {"README.md", "docs/memory-and-knowledge.md"} <= pages


@pytest.mark.parametrize("code", [pytest.param(b.code, id=b.name) for b in SHOWN])
def test_an_agent_file_of_the_pages_loads(code: str) -> None:
    agent = parse_agent(yaml.safe_load(code), "page")
    assert agent.agent_id


def test_the_knowledge_example_names_its_bases() -> None:
    (shown,) = [b for b in SHOWN if b.page == "docs/memory-and-knowledge.md"]
    agent = parse_agent(yaml.safe_load(shown.code), "page")
    assert agent.knowledge == {"bases": ("support", "faq"), "rerank": False}
    readme = [b for b in SHOWN if b.page == "README.md"]
    knowledge = [parse_agent(yaml.safe_load(b.code), "page").knowledge for b in readme]
    assert {"bases": ("billing-faq",), "rerank": True} in knowledge
