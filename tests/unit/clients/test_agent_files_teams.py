"""The Python client reads and writes the team keys of agent files (delegates,
fresh_start, panels) as the server's agent files have them."""

from __future__ import annotations

import pytest

from agentd_client.agent_files import AgentFileError, agent_mapping, agent_message

LEAD = {
    "id": "lead",
    "delegates": ["researcher", "writer"],
    "fresh_start": True,
    "panels": [
        {"name": "review", "agents": ["a", "b", "c"], "threshold": 0.7,
         "judge_model": "judge", "description": "three reviewers"},
        {"name": "quick", "agents": ["a", "b"]},
    ],
}  # fmt: skip


def test_team_keys_go_to_the_message_and_back() -> None:
    message = agent_message(LEAD)
    assert list(message.delegates) == ["researcher", "writer"]
    assert message.fresh_start
    assert [(p.name, list(p.agents), p.threshold) for p in message.panels] == [
        ("review", ["a", "b", "c"], pytest.approx(0.7)),
        ("quick", ["a", "b"], 0.0),
    ]
    back = agent_mapping(message)
    assert back["delegates"] == ["researcher", "writer"]
    assert back["fresh_start"] is True
    assert back["panels"][1] == {"name": "quick", "agents": ["a", "b"]}
    assert back["panels"][0]["judge_model"] == "judge"


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"delegates": "writer"}, "delegates"),
        ({"fresh_start": "yes"}, "fresh_start"),
        ({"panels": [{"name": "p", "agents": "a"}]}, "panels[0].agents"),
        ({"panels": [{"name": "p", "agents": ["a"], "threshold": "high"}]}, "panels[0].threshold"),
    ],
)
def test_bad_team_keys_name_the_field(data: dict[str, object], field: str) -> None:
    with pytest.raises(AgentFileError) as refused:
        agent_message({"id": "lead", **data})
    assert refused.value.field == field
