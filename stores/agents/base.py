"""Where agents managed by RPC are kept: every version of every agent of every tenant.

Contract:
- `create` stores version 1 of a new agent; AgentExistsError when the tenant has an
  agent of that id that is not deleted.
- `update` stores the next version (the latest + 1) of an existing agent and returns
  it; AgentNotFoundError when there is none (or it is deleted). Two updates at once
  never get the same version: one of them fails with AgentExistsError.
- `get` returns the latest version, or the version asked for (old versions stay
  readable, also after a delete); None when there is no such agent or version, or,
  for the latest, when the agent is deleted. Another tenant's agents are never seen.
- `list` returns a page of the latest version of each agent of a tenant that is not
  deleted, by id: `size` of them after the cursor `after` (its id), with the cursor of
  the next page (`KeyCursor(0, id)`) when more follow.
- `delete` marks an agent deleted (its versions stay readable by number); False when
  there was nothing to delete.
- `promote` makes a version of a living agent its promoted one and returns that version;
  AgentNotFoundError when the agent is deleted or has no such version (one kept from
  before a delete is not its own). A create after a delete starts with none promoted.
- Every version returned carries the agent's promoted version (`AgentVersion.promoted`;
  0 while none is, and for a deleted agent). With `promoted`, `get` (of no version) and
  `list` give the version the bare id serves under the promotion gate instead of the
  latest: the promoted one, or the agent's first version (since its last delete) while
  none is.
- An update and a delete racing each other are ordered: the update stores the next
  version only while the one it read is still the live latest (compare and set), and
  a delete marks the latest version whatever came in between. A delete that returned
  True leaves no live agent behind.
"""

from __future__ import annotations

from typing import Protocol

from records.agents.definition import AgentDefinition, AgentVersion
from records.paging import KeyCursor, Page, id_cursor


class AgentStore(Protocol):
    async def create(self, tenant: str, agent: AgentDefinition, by: str) -> AgentVersion: ...

    async def update(self, tenant: str, agent: AgentDefinition, by: str) -> AgentVersion: ...

    async def get(
        self, tenant: str, agent_id: str, version: int | None = None, *, promoted: bool = False
    ) -> AgentVersion | None: ...

    async def list(
        self, tenant: str, *, size: int, after: KeyCursor | None = None, promoted: bool = False
    ) -> Page[AgentVersion, KeyCursor]: ...

    async def count(self, tenant: str) -> int:
        """The tenant's agents not deleted (as many as `list` gives)."""
        ...

    async def delete(self, tenant: str, agent_id: str) -> bool: ...

    async def promote(self, tenant: str, agent_id: str, version: int, by: str) -> AgentVersion: ...


def agent_page(found: list[AgentVersion], size: int) -> Page[AgentVersion, KeyCursor]:
    """The page of `found` (read as `size` + 1, by id)."""
    return Page.cut(found, size, lambda v: id_cursor(v.agent.agent_id))
