"""An agent's `knowledge.bases`: checked like its other keys; `search_knowledge` is shown
to its tasks with those bases listed (the argument optional when there is one), and a
call inside its tasks may search only them. An agent naming none keeps every base."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import cast

import pytest

from agent.definitions.selection import narrow
from agent.knowledge.rerank import KnowledgeSearch
from agent.knowledge.tools import SearchKnowledge, chosen_base
from agent.llm.testing import ScriptedModel
from core.identity import CallContext
from records import serialization
from records.agents.definition import AgentDefinition, AgentInvalidError, parse_agent
from records.agents.knowledge_keys import preferring, scoped
from records.tasks import Task, new_task_id
from records.tools.outcomes import ToolFailed
from tests.unit.agent.runs import PRINCIPAL, make_env

SPEC = SearchKnowledge.spec


def test_bases_are_parsed_and_checked() -> None:
    agent = parse_agent(
        {"id": "support", "knowledge": {"bases": ["faq", "manuals", "faq"], "rerank": True}},
        "a.yaml",
    )
    assert agent.knowledge == {"bases": ("faq", "manuals"), "rerank": True}
    for bad, field in (
        ({"bases": "faq"}, "knowledge.bases"),
        ({"bases": []}, "knowledge.bases"),
        ({"bases": [f"kb{n}" for n in range(33)]}, "knowledge.bases"),
        ({"bases": ["faq", "Bad Id"]}, "knowledge.bases[1]"),
        ({"bases": [3]}, "knowledge.bases[0]"),
    ):
        with pytest.raises(AgentInvalidError) as refused:
            parse_agent({"id": "support", "knowledge": bad}, "a.yaml")
        assert refused.value.field == field


def test_the_spec_lists_the_bases_and_one_base_may_be_left_out() -> None:
    one = scoped(SPEC, {"bases": ("faq",)})
    assert "only these knowledge bases: faq." in one.description
    assert one.parameters["required"] == ["query"]
    argument = one.parameters["properties"]["knowledge_base"]
    assert argument["default"] == "faq"
    two = scoped(SPEC, {"bases": ("faq", "manuals")})
    assert "only these knowledge bases: faq, manuals." in two.description
    assert two.parameters["required"] == ["query", "knowledge_base"]
    assert scoped(two, {"bases": ("faq", "manuals")}) == two  # shown once, whatever the path
    assert scoped(SPEC, {"rerank": True}) is SPEC  # no bases: as it is
    assert scoped(SPEC, {}) is SPEC
    foreign = replace(SPEC, description="theirs", source="mcp")
    assert scoped(foreign, {"bases": ("faq",)}) is foreign  # only the built-in tool


def test_narrow_shows_an_agents_tasks_the_scoped_spec() -> None:
    specs = {SPEC.name: SPEC}
    for tools in ([], ["search_knowledge"]):
        agent = parse_agent({"id": "a", "tools": tools, "knowledge": {"bases": ["faq"]}}, "a")
        assert narrow(agent, (), specs)[SPEC.name] == scoped(SPEC, agent.knowledge)
    plain = parse_agent({"id": "b"}, "b.yaml")
    assert narrow(plain, (), specs)[SPEC.name] is SPEC
    assert narrow(None, (), specs)[SPEC.name] is SPEC


def test_a_call_searches_only_the_agents_bases() -> None:
    with preferring({"bases": ("faq",)}):
        assert chosen_base(None) == "faq"
        assert chosen_base("faq") == "faq"
        with pytest.raises(ToolFailed, match="'internal' is not one this agent may search"):
            chosen_base("internal")
    with preferring({"bases": ("faq", "manuals")}):
        assert chosen_base("manuals") == "manuals"
        with pytest.raises(ToolFailed, match="one of faq, manuals"):
            chosen_base(None)
    with preferring({"rerank": False}):  # no bases: any base of the tenant
        assert chosen_base("internal") == "internal"
        with pytest.raises(ToolFailed, match="name the knowledge base"):
            chosen_base("")
    assert chosen_base("internal") == "internal"  # outside any task of an agent


def test_a_resumed_task_is_shown_the_scoped_spec_and_keeps_its_bases(tmp_path: Path) -> None:
    """A run is made from the registry's specs when a task resumes (takeover): the run
    factory scopes them again, and the agent's bases survive its checkpoint's JSON."""
    agent = parse_agent({"id": "a", "knowledge": {"bases": ["faq"]}}, "a.yaml")
    stored = serialization.loads(serialization.dumps(agent))
    assert isinstance(stored, AgentDefinition)
    assert stored.knowledge == agent.knowledge
    env = make_env(tmp_path)
    env.registry.register(SearchKnowledge(cast(KnowledgeSearch, None)))
    factory = env.factory(ScriptedModel([]))
    task = Task(task_id=new_task_id(), tenant="acme", owner="alice", goal="q", agent=stored)
    specs = factory.specs(["search_knowledge"])
    assert specs["search_knowledge"] == SPEC
    run = factory.new(task, CallContext(PRINCIPAL), specs, 0, persist=False)
    assert run.tools.specs["search_knowledge"] == scoped(SPEC, agent.knowledge)
