"""An agent's `remote_delegates:` key: agents served elsewhere over A2A that it may hand
work to, each offered to its model as `agent.<id>` like a local delegate
(`agent.teams.remote`, `server.a2a.remote`).

A definition names where the remote agent is and where its credentials are (an
environment variable or a file), never the secret itself."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from records.agents.checks import AgentInvalidError, text_key
from records.agents.team_keys import AGENT_ID, MAX_DELEGATES

ADDRESS = re.compile(r"^[A-Za-z0-9.\-\[\]:]{1,255}:[0-9]{1,5}$")
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
CARD_URL = re.compile(r"^https?://[^\s]{1,2000}$")
REMOTE_KEYS = frozenset(
    {"id", "description", "url", "card_url", "agent", "token_env", "token_file"}
)
"""The keys of one entry of `remote_delegates:`."""


@dataclass(frozen=True, slots=True)
class RemoteDelegate:
    """A remote A2A agent (its gRPC binding) a task may hand work to."""

    agent_id: str
    """Its id here: the tool `agent.<id>`, the child task's agent."""
    url: str
    """The A2A gRPC address, `host:port` (the card's GRPC interface URL); empty when
    `card_url` names where its card is."""
    agent: str = ""
    """The request's `tenant` field (for an agentd server: its agent's id); empty: none."""
    description: str = ""
    token_env: str = ""
    """An environment variable holding the bearer token sent as `authorization`."""
    token_file: str = ""
    """A file holding the bearer token (read at every call, so it may be rotated)."""
    card_url: str = ""
    """Where its agent card is (http(s)); its GRPC interface is called."""


def remote_delegates_key(
    value: Any, source: str, own: str, delegates: tuple[str, ...]
) -> tuple[RemoteDelegate, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or len(value) > MAX_DELEGATES:
        raise AgentInvalidError(
            source, "remote_delegates", f"a list of at most {MAX_DELEGATES} remote agents"
        )
    found: list[RemoteDelegate] = []
    for index, item in enumerate(value):
        found.append(_remote(item, source, f"remote_delegates[{index}]"))
    ids = [r.agent_id for r in found]
    for agent_id in ids:
        where = "remote_delegates"
        if agent_id == own:
            raise AgentInvalidError(source, where, f"an agent cannot delegate to itself ({own})")
        if agent_id in delegates or ids.count(agent_id) > 1:
            raise AgentInvalidError(source, where, f"agent {agent_id!r} is named twice")
    return tuple(found)


def _remote(item: Any, source: str, where: str) -> RemoteDelegate:
    if not isinstance(item, Mapping):
        raise AgentInvalidError(source, where, "a mapping with id, url and credentials")
    unknown = sorted(set(map(str, item)) - REMOTE_KEYS)
    if unknown:
        raise AgentInvalidError(source, f"{where}.{unknown[0]}", "unknown key")
    agent_id = item.get("id")
    if not isinstance(agent_id, str) or not AGENT_ID.fullmatch(agent_id):
        raise AgentInvalidError(source, f"{where}.id", "1 to 64 of [a-z0-9-]")
    url, card_url = item.get("url", ""), item.get("card_url", "")
    if not isinstance(card_url, str) or (card_url and not CARD_URL.fullmatch(card_url)):
        raise AgentInvalidError(source, f"{where}.card_url", "an http(s) URL of its agent card")
    if not isinstance(url, str) or (url and not ADDRESS.fullmatch(url)):
        raise AgentInvalidError(source, f"{where}.url", "the A2A gRPC address, host:port")
    if bool(url) == bool(card_url):
        raise AgentInvalidError(source, f"{where}.url", "url or card_url (one of them)")
    agent = item.get("agent", "")
    if not isinstance(agent, str) or (agent and not AGENT_ID.fullmatch(agent.split("@")[0])):
        raise AgentInvalidError(source, f"{where}.agent", "the remote agent's id")
    token_env = item.get("token_env", "")
    if not isinstance(token_env, str) or (token_env and not ENV_NAME.fullmatch(token_env)):
        raise AgentInvalidError(source, f"{where}.token_env", "an environment variable's name")
    token_file = item.get("token_file", "")
    if not isinstance(token_file, str) or len(token_file) > 1_000:
        raise AgentInvalidError(source, f"{where}.token_file", "a file's path")
    if token_env and token_file:
        raise AgentInvalidError(source, where, "token_env or token_file, not both")
    return RemoteDelegate(
        agent_id=agent_id,
        url=url,
        agent=agent,
        description=text_key(item, "description", source, 2_000),
        token_env=token_env,
        token_file=token_file,
        card_url=card_url,
    )
