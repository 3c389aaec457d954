"""The agents a tenant may use, and managing its own through the API.

A tenant's own agents (created by RPC, every version kept in the agent store)
come first; agents from files (`agent.definitions.files`) serve every tenant and can
be read but not changed here. A tenant's agent with the id of a file agent
takes its place for that tenant, every version of it and after a delete too.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import UTC, datetime
from typing import Any, Protocol

import structlog

from agent.definitions.promotion import NoEvalRuns, PassedEvalRuns
from agent.guardrails import declarations as guardrails
from agent.teams.graph import find_cycle, show
from core.errors import (
    AgentLimitError,
    AgentNotFoundError,
    FieldViolation,
    InvalidArgumentError,
)
from core.identity import Principal
from core.roles import DEFAULT_ROLES, Action, RoleTable
from records.agents.definition import AgentDefinition, AgentInvalidError, AgentVersion, parse_agent
from records.paging import KeyCursor, Page
from stores.agents.base import AgentStore

log = structlog.get_logger(__name__)

MAX_AGENTS_PER_TENANT = 1_000
"""Agents (not deleted) one tenant may have by RPC, by default (AGENTD_MAX_AGENTS_PER_TENANT)."""
OWN_PAGE = 500
"""A tenant's own agents read at once when their ids are all needed (to leave out the file
agents they replace)."""


def _key(cursor: KeyCursor) -> tuple[int, str]:
    return (cursor.group, cursor.item_id)


class FileAgents(Protocol):
    def get(self, agent_id: str) -> AgentDefinition | None: ...

    def all(self) -> list[AgentDefinition]: ...


class Agents:
    """What the engine resolves agents with, and what the agent RPCs go through."""

    def __init__(
        self,
        store: AgentStore | None,
        files: FileAgents | None = None,
        roles: RoleTable = DEFAULT_ROLES,
        *,
        max_per_tenant: int = MAX_AGENTS_PER_TENANT,
        models: Collection[str] = (),
        credentials: Collection[str] = (),
        promotion_gate: bool = False,
        passed_runs: PassedEvalRuns | None = None,
    ) -> None:
        self._store = store
        self._gate = promotion_gate
        """AGENTD_PROMOTION_GATE: the bare id serves the promoted version, not the latest."""
        self._passed = passed_runs or NoEvalRuns()
        self._models = tuple(models)
        """The models agents may name (AGENTD_AGENT_MODELS); empty: any."""
        self._credentials = frozenset(credentials)
        """What an agent made here may name as a remote delegate's token_env or token_file
        (AGENTD_API_AGENT_CREDENTIALS): the server's secrets are the operator's to hand out."""
        self._files = files
        self._roles = roles
        self._max = max_per_tenant
        self._started = datetime.now(UTC)

    async def find(
        self, tenant: str, agent_id: str, version: int | None = None
    ) -> AgentVersion | None:
        """An agent the tenant may use: its own (any version kept; with no version, the
        latest, or under the promotion gate the promoted one), else a file's (its current
        version only)."""
        if self._store is not None:
            own = await self._store.get(tenant, agent_id, version, promoted=self._gate)
            if own is not None:
                return own
            if await self._store.get(tenant, agent_id, 1) is not None:
                return None  # the tenant's own id (deleted, or not that version): never a file's
        agent = self._files.get(agent_id) if self._files is not None else None
        if agent is None or (version is not None and version != agent.version):
            return None
        return self._shared(agent)

    async def list(
        self, tenant: str, after: KeyCursor | None = None, *, size: int
    ) -> Page[AgentVersion, KeyCursor]:
        """A page of the agents the tenant may use: its own (group 0, a page of the
        store's), then the file agents it may use (group 1), each by id; `size` of them
        after the cursor `after`, with the cursor of the next page when more follow."""
        keyed: list[tuple[KeyCursor, AgentVersion]] = []
        own_ids: set[str] | None = None
        if self._store is not None and (after is None or after.group <= 0):
            own_after = after if after is not None and after.group == 0 else None
            own = await self._store.list(tenant, size=size, after=own_after, promoted=self._gate)
            if own.next is not None:
                return own
            keyed = [(KeyCursor(0, v.agent.agent_id), v) for v in own.items]
            if own_after is None:  # the whole of them
                own_ids = {v.agent.agent_id for v in own.items}
        files = self._files.all() if self._files is not None else []
        if files:
            own_ids = await self._own_ids(tenant) if own_ids is None else own_ids
            for agent in sorted(files, key=lambda a: a.agent_id):
                key = KeyCursor(1, agent.agent_id)
                if agent.agent_id not in own_ids and (after is None or _key(key) > _key(after)):
                    keyed.append((key, self._shared(agent)))
        page = Page.cut(keyed, size, lambda item: item[0])
        return Page(tuple(v for _, v in page.items), page.next)

    async def _own_ids(self, tenant: str) -> set[str]:
        """The ids of the tenant's own agents (not deleted), read a page at a time."""
        ids: set[str] = set()
        after: KeyCursor | None = None
        while self._store is not None:
            page = await self._store.list(tenant, size=OWN_PAGE, after=after)
            ids.update(v.agent.agent_id for v in page.items)
            if page.next is None:
                break
            after = page.next
        return ids

    def _shared(self, agent: AgentDefinition) -> AgentVersion:
        """A file agent as a version: every tenant's, made when this process read it."""
        return AgentVersion(agent, "", self._started, "file", "file")

    async def create(self, caller: Principal, data: dict[str, Any]) -> AgentVersion:
        self._require_admin(caller)
        agent = _parsed(data, self._models, self._credentials)
        await self._refuse_cycle(caller.tenant, agent)
        store = self._writable()
        if await store.count(caller.tenant) >= self._max:
            raise AgentLimitError(caller.tenant, self._max)
        return await store.create(caller.tenant, agent, caller.id)

    async def update(self, caller: Principal, data: dict[str, Any]) -> AgentVersion:
        self._require_admin(caller)
        agent = _parsed(data, self._models, self._credentials)
        await self._refuse_cycle(caller.tenant, agent)
        return await self._writable().update(caller.tenant, agent, caller.id)

    async def _refuse_cycle(self, tenant: str, agent: AgentDefinition) -> None:
        """InvalidArgumentError when `agent`'s delegates lead back to it (as the tenant's
        agents are now)."""
        graph: dict[str, tuple[str, ...]] = {agent.agent_id: agent.team}
        pending = list(agent.team)
        while pending and len(graph) < 1_000:
            node = pending.pop()
            if node in graph:
                continue
            found = await self.find(tenant, node)
            graph[node] = found.agent.team if found is not None else ()
            pending.extend(graph[node])
        cycle = find_cycle(graph)
        if cycle is not None:
            problem = f"delegation cycle {show(cycle)} (agents may not delegate in a circle)"
            raise InvalidArgumentError([FieldViolation("agent.delegates", problem)])

    async def promote(
        self, caller: Principal, agent_id: str, version: int, eval_run_id: str = ""
    ) -> AgentVersion:
        """Make `version` the one the bare id serves (logged with the evaluation run that
        allowed it). AgentNotFoundError for a version the tenant's living agent does not
        have; under the gate, PromotionRefusedError without a run of it that passed (the
        one named, or the latest); with the gate off no run is asked for."""
        self._require_admin(caller)
        store = self._writable()
        allowed_by = ""
        if self._gate:
            live = await store.get(caller.tenant, agent_id)
            if live is None or await store.get(caller.tenant, agent_id, version) is None:
                raise AgentNotFoundError(f"{agent_id}@{version}")
            allowed_by = await self._passed.passed(caller.tenant, agent_id, version, eval_run_id)
        promoted = await store.promote(caller.tenant, agent_id, version, caller.id)
        log.info(
            "agent version promoted",
            tenant=caller.tenant,
            agent=f"{agent_id}@{version}",
            by=caller.id,
            eval_run_id=allowed_by,
            gate=self._gate,
        )
        return promoted

    async def delete(self, caller: Principal, agent_id: str) -> None:
        self._require_admin(caller)
        if not await self._writable().delete(caller.tenant, agent_id):
            raise AgentNotFoundError(agent_id)

    def _require_admin(self, caller: Principal) -> None:
        self._roles.require(caller.roles, Action.MANAGE_AGENTS)

    def _writable(self) -> AgentStore:
        assert self._store is not None, "agent RPCs need an agent store"
        return self._store


def _parsed(
    data: dict[str, Any], models: Collection[str], credentials: Collection[str]
) -> AgentDefinition:
    """A definition from the API; InvalidArgumentError naming the field at fault. Its
    remote delegates may name only `credentials` (the server reads them and sends what
    they hold to the remote, so a caller naming any would read the server's secrets)."""
    try:
        agent = parse_agent(data, "agent", models)
    except AgentInvalidError as invalid:
        violation = FieldViolation(f"agent.{invalid.field}", invalid.problem)
        raise InvalidArgumentError([violation]) from None
    _, problems = guardrails.parse(list(agent.guardrails))
    if problems:
        raise InvalidArgumentError([FieldViolation(f"agent.{f}", p) for f, p in problems])
    for index, remote in enumerate(agent.remote_delegates):
        for key, named in (("token_env", remote.token_env), ("token_file", remote.token_file)):
            if named and named not in credentials:
                problem = (
                    f"{named!r} is not a credential agents made through the API may name "
                    "(AGENTD_API_AGENT_CREDENTIALS lists them; agent files may name any)"
                )
                field = f"agent.remote_delegates[{index}].{key}"
                raise InvalidArgumentError([FieldViolation(field, problem)])
    return agent
