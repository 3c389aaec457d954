"""Agents kept in this process (tests, and a server without a database of its own)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime

from core.errors import AgentExistsError, AgentNotFoundError
from records.agents.definition import AgentDefinition, AgentVersion
from records.paging import KeyCursor, Page, id_after
from stores.agents.base import agent_page


class InMemoryAgentStore:
    def __init__(self) -> None:
        self._versions: dict[tuple[str, str], list[AgentVersion]] = {}
        self._deleted: set[tuple[str, str]] = set()

    async def create(self, tenant: str, agent: AgentDefinition, by: str) -> AgentVersion:
        key = (tenant, agent.agent_id)
        versions = self._versions.get(key, [])
        if versions and key not in self._deleted:
            raise AgentExistsError(agent.agent_id)
        self._deleted.discard(key)
        return self._add(key, replace(agent, version=len(versions) + 1), by)

    async def update(self, tenant: str, agent: AgentDefinition, by: str) -> AgentVersion:
        key = (tenant, agent.agent_id)
        versions = self._versions.get(key)
        if not versions or key in self._deleted:
            raise AgentNotFoundError(agent.agent_id)
        return self._add(key, replace(agent, version=len(versions) + 1), by)

    def _add(self, key: tuple[str, str], agent: AgentDefinition, by: str) -> AgentVersion:
        stored = AgentVersion(agent, key[0], datetime.now(UTC), by)
        self._versions.setdefault(key, []).append(stored)
        return stored

    async def get(
        self, tenant: str, agent_id: str, version: int | None = None
    ) -> AgentVersion | None:
        key = (tenant, agent_id)
        versions = self._versions.get(key, [])
        if version is None:
            return versions[-1] if versions and key not in self._deleted else None
        return versions[version - 1] if 0 < version <= len(versions) else None

    async def list(
        self, tenant: str, *, size: int, after: KeyCursor | None = None
    ) -> Page[AgentVersion, KeyCursor]:
        start = id_after(after)
        found = [v for v in self._live(tenant) if v.agent.agent_id > start]
        return agent_page(sorted(found, key=lambda stored: stored.agent.agent_id), size)

    async def count(self, tenant: str) -> int:
        return sum(1 for _ in self._live(tenant))

    def _live(self, tenant: str) -> Iterator[AgentVersion]:
        """The newest version of each of the tenant's agents not deleted."""
        for key, versions in self._versions.items():
            if key[0] == tenant and key not in self._deleted:
                yield versions[-1]

    async def delete(self, tenant: str, agent_id: str) -> bool:
        key = (tenant, agent_id)
        if key not in self._versions or key in self._deleted:
            return False
        self._deleted.add(key)
        return True
