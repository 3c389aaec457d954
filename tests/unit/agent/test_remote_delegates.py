"""An agent's `remote_delegates:` key: what it accepts, what it refuses and why."""

from __future__ import annotations

from typing import Any

import pytest

from agent.definitions.catalog import Agents
from agent.scheduling.intake import REMOTE_ONLY, remote_agent
from core.errors import InvalidArgumentError
from core.identity import Principal
from records.agents.definition import AgentInvalidError, RemoteDelegate, parse_agent
from records.serialization import dumps, loads
from stores.agents.memory import InMemoryAgentStore

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


ADMIN = Principal("alice", "acme", ("admin",))
ASKING = {
    "id": "coordinator",
    "remote_delegates": [
        {"id": "finance", "url": "finance.internal:7443", "token_env": "FINANCE_TOKEN"},
        {"id": "legal", "url": "legal.internal:7443", "token_file": "/run/secrets/legal"},
    ],
}


@pytest.mark.parametrize(
    ("listed", "field"),
    [
        ((), "agent.remote_delegates[0].token_env"),
        (("FINANCE_TOKEN",), "agent.remote_delegates[1].token_file"),
        (("/run/secrets/legal", "OTHER"), "agent.remote_delegates[0].token_env"),
    ],
)
async def test_an_agent_made_by_rpc_names_only_the_credentials_the_operator_lists(
    listed: tuple[str, ...], field: str
) -> None:
    """The server reads the credential and sends it to the remote: an agent made through
    the API naming any variable or file would send the server's own secrets (its database
    URL, its providers' keys) wherever it likes."""
    agents = Agents(InMemoryAgentStore(), credentials=listed)
    with pytest.raises(InvalidArgumentError) as refused:
        await agents.create(ADMIN, ASKING)
    assert [v.field for v in refused.value.violations] == [field]
    assert "AGENTD_API_AGENT_CREDENTIALS" in refused.value.violations[0].description
    with pytest.raises(InvalidArgumentError):
        await agents.update(ADMIN, ASKING)


async def test_listed_credentials_are_accepted_and_agent_files_may_name_any() -> None:
    agents = Agents(InMemoryAgentStore(), credentials=("FINANCE_TOKEN", "/run/secrets/legal"))
    made = await agents.create(ADMIN, ASKING)
    assert [r.token_env or r.token_file for r in made.agent.remote_delegates] == [
        "FINANCE_TOKEN", "/run/secrets/legal",
    ]  # fmt: skip
    assert len(parse_agent(ASKING, "coordinator.yaml").remote_delegates) == 2
