"""One schema of agent files: the Python client (`agentd_client.agent_files`, what `agentd
agents create` sends) knows every key the server's parser (`records.agents.definition`)
reads, nested keys too, and maps each onto the `Agent` message so that the server reads
the agent as it would read the file itself. A key added to one side only fails here."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest

from agentd.v1 import agents_pb2
from agentd_client import agent_file_sections as client_sections
from agentd_client.agent_files import KEYS as CLIENT_KEYS
from agentd_client.agent_files import AgentFileError, agent_mapping, agent_message
from records.agents import knowledge_keys, provider_keys, remote_keys, team_keys
from records.agents.definition import KEYS as SERVER_KEYS
from records.agents.definition import AgentVersion, parse_agent
from records.conversations import policy
from server.convert.agents import agent_data, agent_to_proto

PAIRS = {
    "(agent file)": (CLIENT_KEYS, SERVER_KEYS),
    "memory": (client_sections.MEMORY_KEYS, frozenset(policy.KEYS)),
    "knowledge": (client_sections.KNOWLEDGE_KEYS, frozenset(knowledge_keys.KEYS)),
    "fallback[]": (client_sections.FALLBACK_KEYS, provider_keys.FALLBACK_KEYS),
    "panels[]": (client_sections.PANEL_KEYS, team_keys.PANEL_KEYS),
    "remote_delegates[]": (client_sections.REMOTE_KEYS, remote_keys.REMOTE_KEYS),
}
"""Each part of an agent file: the keys the client sends, and the keys the server reads."""

EVERY_KEY: dict[str, Any] = {
    "id": "everything",
    "version": 3,
    "description": "Uses every key",
    "instructions": "You help {{company}}.",
    "model": {"default": "gpt-4o", "critic": "gpt-4o-mini"},
    "temperature": 0.2,
    "max_tokens": 900,
    "tools": ["calculator", "category:time", "search_knowledge"],
    "mode": "plan_and_execute",
    "max_iterations": 8,
    "token_budget": 20000,
    "step_timeout_seconds": 30.0,
    "task_timeout_seconds": 300.0,
    "critic_policy": "end",
    "step_policy": "skip",
    "max_failed_tool_calls": 0,
    "metadata": {"team": "billing"},
    "ask_user": True,
    "output_schema": {"type": "object", "properties": {"total": {"type": "number"}}},
    "memory": {"budget_tokens": 2000, "max_messages": 20, "tool_calls": "summarize",
               "tool_result_tokens": 500, "compaction": "drop", "summary_tokens": 400,
               "recall_top_k": 0, "extract": False},
    "knowledge": {"bases": ["support", "faq"], "rerank": False},
    "provider": {"default": "primary", "critic": "backup"},
    "fallback": [{"provider": "backup", "model": "qwen2.5-72b"}, {"provider": "other"}],
    "delegates": ["researcher"],
    "fresh_start": True,
    "panels": [{"name": "review", "agents": ["researcher", "writer"], "threshold": 0.7,
                "judge_model": "judge", "description": "a vote"}],
    "remote_delegates": [
        {"id": "finance", "url": "finance.internal:7443", "agent": "helper",
         "token_env": "FINANCE_TOKEN", "description": "figures"},
        {"id": "legal", "card_url": "https://legal.internal/card.json",
         "token_file": "/run/secrets/legal"},
    ],
    "guardrails": [{"name": "no-cards", "kind": "pii", "points": ["output"],
                    "action": "redact", "entities": ["card"]}],
}  # fmt: skip
"""An agent file with every key the server reads, each part with every key of its own."""

SET_BY_THE_SERVER = {"version", "created_at", "created_by", "source", "promoted_version"}


def drift(pairs: dict[str, tuple[frozenset[str], frozenset[str]]]) -> list[str]:
    """What the client and the server disagree on: each key known to one side only."""
    return [
        f"{part}: {key} is known to the {'client' if key in client else 'server'} only"
        for part, (client, server) in pairs.items()
        for key in sorted(client ^ server)
    ]


def test_the_client_knows_the_keys_the_server_reads() -> None:
    assert drift(PAIRS) == []


@pytest.mark.parametrize("part", list(PAIRS))
@pytest.mark.parametrize("side", [0, 1])
def test_a_key_added_to_one_side_only_is_drift(part: str, side: int) -> None:
    pairs = dict(PAIRS)
    sets = list(pairs[part])
    sets[side] = sets[side] | {"new_key"}
    pairs[part] = (sets[0], sets[1])
    assert drift(pairs) == [f"{part}: new_key is known to the {('client', 'server')[side]} only"]


def _keys(data: Any) -> dict[str, set[str]]:
    """The keys an agent file uses, by part (as in PAIRS)."""
    found: dict[str, set[str]] = {"(agent file)": set(data)}
    for key in ("memory", "knowledge"):
        found[key] = set(data.get(key, {}))
    for key in ("fallback", "panels", "remote_delegates"):
        found[f"{key}[]"] = {k for entry in data.get(key, []) for k in entry}
    return found


def test_the_example_uses_every_key_of_every_part() -> None:
    """So that the tests below reach each key a parser knows (a key added to both is
    added here too)."""
    used = _keys(EVERY_KEY)
    assert {part: used[part] for part in PAIRS} == {p: set(s) for p, (_, s) in PAIRS.items()}


def test_every_key_reaches_the_server_as_the_file_says() -> None:
    sent = agent_message(EVERY_KEY)
    unset = {f.name for f in agents_pb2.Agent.DESCRIPTOR.fields} - {
        f.name for f, _ in sent.ListFields()
    }
    assert unset == SET_BY_THE_SERVER  # every field a caller sets is set from the file
    as_sent = parse_agent(agent_data(sent), "agent")
    assert as_sent == replace(parse_agent(EVERY_KEY, "file"), version=1)


def test_an_agent_comes_back_as_the_file_it_was_made_from() -> None:
    """What GetAgent returns, as `agentd agents show` prints it, reads as the same agent."""
    definition = parse_agent(EVERY_KEY, "file")
    stored = AgentVersion(definition, "acme", datetime.now(UTC), "alice", promoted=2)
    message = agent_to_proto(stored)
    back = agent_mapping(message)
    assert parse_agent(back, "shown") == definition
    for name in ("version", "created_at", "created_by", "source", "promoted_version"):
        message.ClearField(name)  # SET_BY_THE_SERVER
    assert agent_message(back) == message  # and sent again, it is the same message


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"knowledge": {"bases": "support"}}, "knowledge.bases"),
        ({"knowledge": {"rerank": "yes"}}, "knowledge.rerank"),
        ({"knowledge": {"top_k": 3}}, "knowledge.top_k"),
        ({"memory": {"extract": "yes"}}, "memory.extract"),
        ({"memory": {"recall": 3}}, "memory.recall"),
        ({"max_failed_tool_calls": -1}, "max_failed_tool_calls"),
        ({"step_policy": 3}, "step_policy"),
        ({"provider": ["primary"]}, "provider"),
        ({"fallback": [{"provider": "b", "url": "x"}]}, "fallback[0].url"),
        ({"fallback": {"provider": "b"}}, "fallback"),
        ({"panels": [{"name": "p", "agents": ["a", "b"], "quorum": 2}]}, "panels[0].quorum"),
        (
            {"remote_delegates": [{"id": "far", "url": "x:1", "token": "s3cret"}]},
            "remote_delegates[0].token",
        ),
        ({"remote_delegates": [{"id": "far", "url": 7443}]}, "remote_delegates[0].url"),
    ],
)
def test_what_cannot_be_sent_names_its_key(data: dict[str, Any], field: str) -> None:
    with pytest.raises(AgentFileError) as refused:
        agent_message({"id": "a", **data})
    assert refused.value.field == field
