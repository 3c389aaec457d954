"""An agent's `remote_delegates:` key: what it accepts, what it refuses and why."""

from __future__ import annotations

from typing import Any

import pytest

from agent.scheduling.intake import REMOTE_ONLY, remote_agent
from records.agents.definition import AgentInvalidError, RemoteDelegate, parse_agent
from records.serialization import dumps, loads

BASE: dict[str, Any] = {"id": "lead", "delegates": ["writer"]}


def parsed(*remotes: Any) -> tuple[RemoteDelegate, ...]:
    return parse_agent({**BASE, "remote_delegates": list(remotes)}, "lead.yaml").remote_delegates


def test_a_remote_delegate_names_its_address_agent_and_where_its_token_is() -> None:
    [remote] = parsed(
        {"id": "far", "url": "127.0.0.1:7443", "agent": "helper", "token_env": "FAR_TOKEN",
         "description": "a helper elsewhere"}
    )  # fmt: skip
    assert remote == RemoteDelegate(
        "far", "127.0.0.1:7443", "helper", "a helper elsewhere", token_env="FAR_TOKEN"
    )


def test_a_remote_delegate_may_be_found_by_its_card() -> None:
    card = "https://agents.example.com/.well-known/agent-card.json"
    [remote] = parsed({"id": "far", "card_url": card, "token_file": "/run/secrets/far"})
    assert (remote.url, remote.card_url, remote.token_file) == ("", card, "/run/secrets/far")


@pytest.mark.parametrize(
    ("remote", "field"),
    [
        ({"id": "far"}, "remote_delegates[0].url"),
        ({"id": "far", "url": "http://x:1"}, "remote_delegates[0].url"),
        ({"id": "Far", "url": "x:1"}, "remote_delegates[0].id"),
        ({"id": "far", "url": "x:1", "token": "s3cret"}, "remote_delegates[0].token"),
        ({"id": "far", "url": "x:1", "token_env": "A", "token_file": "/f"}, "remote_delegates[0]"),
        ({"id": "far", "url": "x:1", "token_env": "not a name"}, "remote_delegates[0].token_env"),
        ({"id": "far", "url": "x:1", "card_url": "https://x/card"}, "remote_delegates[0].url"),
        ({"id": "far", "card_url": "ftp://x/card"}, "remote_delegates[0].card_url"),
        ({"id": "writer", "url": "x:1"}, "remote_delegates"),
        ({"id": "lead", "url": "x:1"}, "remote_delegates"),
    ],
)
def test_a_bad_remote_delegate_is_refused_naming_its_field(
    remote: dict[str, Any], field: str
) -> None:
    with pytest.raises(AgentInvalidError) as refused:
        parsed(remote)
    assert refused.value.field == field


def test_a_remote_childs_agent_is_offered_no_tool_and_round_trips() -> None:
    [remote] = parsed({"id": "far", "url": "x:1"})
    agent = remote_agent(remote)
    assert agent.tools == (REMOTE_ONLY,)
    assert not agent.allows("calculator", "math")
    assert loads(dumps(agent)) == agent
