"""Start-up says, under AGENTD_TOOL_PERMISSION=deny, which grants the callers of agents
that delegate or ask need (a delegation and a question are tool calls the grants decide),
so that a deployment whose grants name only its tools learns why its delegations are
refused; with a level, or no such agent, it says nothing."""

from __future__ import annotations

from records.agents.definition import AgentDefinition, Panel
from server.wiring.agents import grants_needed

LEAD = AgentDefinition(agent_id="lead", delegates=("researcher",))
JURY = AgentDefinition(agent_id="jury", panels=(Panel("review", ("a", "b")),))
ASKING = AgentDefinition(agent_id="asking", ask_user=True)
PLAIN = AgentDefinition(agent_id="plain", tools=("calculator",))


def test_under_deny_the_agents_that_delegate_or_ask_are_named_with_their_grants() -> None:
    said = grants_needed("deny", [LEAD, JURY, ASKING, PLAIN])
    assert "category:agents (or agent.<id>) to delegate, for lead, jury" in said
    assert "ask_user to ask the caller, for asking" in said
    assert "plain" not in said


def test_nothing_is_said_with_a_level_or_without_such_agents() -> None:
    assert grants_needed("read", [LEAD, ASKING]) == ""
    assert grants_needed("deny", [PLAIN]) == ""
