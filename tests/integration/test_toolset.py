"""One toolset: ListTools for an agent, the tools the Plan RPC's planner is shown and the
agent's A2A card name the same tools — its own, `ask_user`, its delegates and its panel
(`agent.definitions.toolset`)."""

from __future__ import annotations

import re
from pathlib import Path

from core.identity import CallContext
from tests.integration.harness import harness

LEAD = """\
id: lead
description: Leads the work
instructions: You lead.
ask_user: true
tools: [calculator, current_time]
delegates: [researcher]
panels:
  - name: review
    agents: [researcher, writer]
    description: two reviewers
"""
RESEARCHER = """\
id: researcher
description: Finds sources
instructions: You research.
tools: [calculator]
"""
WRITER = """\
id: writer
description: Writes
instructions: You write.
"""
EXPECTED = ["agent.researcher", "ask_user", "calculator", "current_time", "panel.review"]


def _agents(folder: Path) -> Path:
    agents = folder / "agents"
    agents.mkdir()
    for name, text in (("lead", LEAD), ("researcher", RESEARCHER), ("writer", WRITER)):
        (agents / f"{name}.yaml").write_text(text)
    return agents


async def test_list_tools_the_planner_and_the_a2a_card_name_the_same_tools(
    tmp_path: Path,
) -> None:
    plan = {"steps": [{"id": "add", "description": "add", "tool": "calculator"}]}
    settings = {"agents_dir": _agents(tmp_path), "a2a": True}
    async with harness(tmp_path, [{"json": plan}], **settings) as h:
        listed = [t.name for t in await h.client.list_tools(agent="lead")]
        await h.client.plan("add 2 and 3", agent="lead")
        system = h.llm.requests[0]["messages"][0]["content"]
        planned = sorted(re.findall(r"^- ([\w.]+): ", system.split("Tools:\n", 1)[1], re.M))
        a2a = h.running.server.a2a
        assert a2a is not None
        card = await a2a.handler.cards.card(CallContext(), "lead")  # type: ignore[attr-defined]
        skills = [skill.id for skill in card.skills]

    assert listed == EXPECTED
    assert planned == EXPECTED
    assert skills == EXPECTED


async def test_list_tools_filters_the_agent_s_toolset_by_category(tmp_path: Path) -> None:
    async with harness(tmp_path, [], agents_dir=_agents(tmp_path)) as h:
        team = [t.name for t in await h.client.list_tools(agent="lead", category="agents")]
        asking = [t.name for t in await h.client.list_tools(agent="lead", category="conversation")]
    assert team == ["agent.researcher", "panel.review"]
    assert asking == ["ask_user"]
