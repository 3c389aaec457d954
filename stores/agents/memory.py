"""Agents kept in this process (tests, and a server without a database of its own)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime

from core.errors import AgentExistsError, AgentNotFoundError
from records.agents.definition import AgentDefinition, AgentVersion
from records.paging import KeyCursor, Page, id_after
from stores.agents.base import agent_page

Key = tuple[str, str]


class InMemoryAgentStore:
    def __init__(self) -> None:
        self._versions: dict[Key, list[AgentVersion]] = {}
        self._deleted: set[Key] = set()
        self._floor: dict[Key, int] = {}
        """The latest version of each agent when it was last deleted: those up to it are
        of a deleted agent."""
        self._promoted: dict[Key, int] = {}

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

    def _add(self, key: Key, agent: AgentDefinition, by: str) -> AgentVersion:
        stored = AgentVersion(agent, key[0], datetime.now(UTC), by)
        self._versions.setdefault(key, []).append(stored)
        return self._marked(key, stored)

    def _promotion(self, key: Key) -> int:
        """The agent's promoted version; 0 while none is, or when it is deleted."""
        promoted = self._promoted.get(key, 0)
        return promoted if promoted > self._floor.get(key, 0) else 0

    def _marked(self, key: Key, stored: AgentVersion) -> AgentVersion:
        return replace(stored, promoted=self._promotion(key))

    def _served(self, key: Key) -> AgentVersion:
        """The version the bare id serves under the gate (of an agent not deleted)."""
        served = self._promotion(key) or self._floor.get(key, 0) + 1
        return self._marked(key, self._versions[key][served - 1])

    async def get(
        self, tenant: str, agent_id: str, version: int | None = None, *, promoted: bool = False
    ) -> AgentVersion | None:
        key = (tenant, agent_id)
        versions = self._versions.get(key, [])
        if version is None:
            if not versions or key in self._deleted:
                return None
            return self._served(key) if promoted else self._marked(key, versions[-1])
        return self._marked(key, versions[version - 1]) if 0 < version <= len(versions) else None

    async def list(
        self, tenant: str, *, size: int, after: KeyCursor | None = None, promoted: bool = False
    ) -> Page[AgentVersion, KeyCursor]:
        start = id_after(after)
        found = [
            self._served(key) if promoted else self._marked(key, self._versions[key][-1])
            for key in self._live(tenant)
            if key[1] > start
        ]
        return agent_page(sorted(found, key=lambda stored: stored.agent.agent_id), size)

    async def count(self, tenant: str) -> int:
        return sum(1 for _ in self._live(tenant))

    def _live(self, tenant: str) -> Iterator[Key]:
        """The tenant's agents not deleted."""
        for key in self._versions:
            if key[0] == tenant and key not in self._deleted:
                yield key

    async def delete(self, tenant: str, agent_id: str) -> bool:
        key = (tenant, agent_id)
        if key not in self._versions or key in self._deleted:
            return False
        self._deleted.add(key)
        self._floor[key] = len(self._versions[key])
        return True

    async def promote(self, tenant: str, agent_id: str, version: int, by: str) -> AgentVersion:
        key = (tenant, agent_id)
        versions = self._versions.get(key, [])
        if key in self._deleted or not self._floor.get(key, 0) < version <= len(versions):
            raise AgentNotFoundError(f"{agent_id}@{version}")
        self._promoted[key] = version
        return self._marked(key, versions[version - 1])
