"""What a request to start a task comes to once checked, and the task it makes.

`choose` checks a request against the caller's tools, its agent and its
conversation (every problem an `INVALID_ARGUMENT` field violation, an unknown agent
or conversation `NOT_FOUND`) before anything is stored; `new_task` is the task it
describes. `StartKeys` holds the requests' idempotency keys: a retry gets the task its
first try started.
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass, replace

from agent.conversations.service import Conversations
from agent.definitions.catalog import Agents
from agent.definitions.selection import narrow, resolve, with_defaults
from agent.definitions.toolset import toolset
from agent.inputs.keeping import InputParts
from agent.modes.router import choose_mode
from agent.requests import given_plan, validate_request
from core.errors import FieldViolation, IdempotencyConflictError, InvalidArgumentError
from core.identity import CallContext
from records.agents.definition import AgentDefinition, RemoteDelegate
from records.execution import ExecutionMode
from records.plan import Plan
from records.requests import TaskRequest
from records.tasks import Delegate, Task
from records.tools.model import ToolSpec
from stores.idempotency.base import IdempotencyStore, scoped_key
from tools.registry import ToolRegistry

REMOTE_ONLY = "category:remote-a2a-only"
"""A remote child's tools entry: it matches no tool, so it is offered none here."""


@dataclass(frozen=True)
class Chosen:
    """What a request comes to once checked: its tools, limit, plan and agent."""

    request: TaskRequest
    """The request with what it left unset taken from its agent."""
    specs: dict[str, ToolSpec]
    iterations: int
    plan: Plan | None
    agent: AgentDefinition | None
    delegates: tuple[Delegate, ...] = ()
    """The agents it may hand work to that the tenant has (`agent.<id>` tools)."""


async def choose(
    request: TaskRequest,
    call: CallContext,
    registry: ToolRegistry,
    agents: Agents | None,
    conversations: Conversations | None,
) -> Chosen:
    remote = request.parent.remote if request.parent is not None else None
    if remote is not None:  # a child on a remote A2A agent: no definition here
        agent: AgentDefinition | None = remote_agent(remote)
    else:
        agent = await resolve(agents, call.principal.tenant, request.agent)
    request = with_defaults(request, agent)
    specs, iterations = validate_request(
        registry,
        request.goal,
        request.tools,
        request.context,
        call,
        request.max_iterations,
        request,
    )
    if request.token_budget < 0:
        raise InvalidArgumentError([FieldViolation("token_budget", "must not be negative")])
    if request.spend_limit < 0:
        raise InvalidArgumentError([FieldViolation("spend_limit", "must not be negative")])
    specs = narrow(agent, request.tools, specs)
    if request.conversation_id:  # NOT_FOUND before anything is stored
        if conversations is None:
            problem = "this server keeps no conversations"
            raise InvalidArgumentError([FieldViolation("conversation_id", problem)])
        await conversations.for_task(call.principal, request.conversation_id)  # its owner's
    tools = await toolset(agents, call.principal.tenant, agent, specs)
    plan = given_plan(request, tools.offered)  # a given plan's steps may name delegates
    return Chosen(request, specs, iterations, plan, agent, tools.delegates)


def digested(request: TaskRequest) -> TaskRequest:
    """The request with each part given by its bytes carrying their digest (what its
    fingerprint holds of it, computed once, here); a URL part goes by its URL."""
    if not any(p.data for p in request.parts):
        return request
    parts = tuple(
        replace(p, sha256=hashlib.sha256(p.data).hexdigest()) if p.data else p
        for p in request.parts
    )
    return replace(request, parts=parts)


async def prepared(inputs: InputParts | None, request: TaskRequest) -> TaskRequest:
    """The request with its input parts fetched, named and checked (`agent.inputs`);
    INVALID_ARGUMENT for parts given to an engine that keeps none."""
    if not request.parts:
        return request
    if inputs is None:
        problem = "this server takes no input parts (it keeps no artifacts)"
        raise InvalidArgumentError([FieldViolation("parts", problem)])
    return await inputs.prepare(request)


async def kept(inputs: InputParts | None, task: Task, request: TaskRequest) -> None:
    """Keep the request's parts as artifacts of `task` (before it is stored and queued);
    the task keeps their references."""
    if inputs is not None and request.parts:
        task.input_parts = await inputs.keep(task, request.parts)


def remote_agent(remote: RemoteDelegate) -> AgentDefinition:
    """The agent of a child task run on a remote A2A agent: no tools here, no model."""
    return AgentDefinition(
        agent_id=remote.agent_id,
        description=remote.description,
        tools=(REMOTE_ONLY,),
        mode=ExecutionMode.FUNCTION_CALLING,
        remote=remote,
    )


def new_task(
    chosen: Chosen, call: CallContext, task_id: str, tool_calling: bool, routed: bool = False
) -> Task:
    """The task a checked request describes (PENDING, not stored yet). `routed`: a router
    model is configured, so auto mode is decided when the task runs."""
    request, plan, parent = chosen.request, chosen.plan, chosen.request.parent
    mode = request.mode
    if plan is not None:  # the caller's plan: run as given, without planning first
        mode = ExecutionMode.PLAN_AND_EXECUTE
    elif mode is ExecutionMode.AUTO and not (routed or _agent_routes(chosen)):
        mode = choose_mode(request.goal, tool_calling)
    return Task(
        task_id=task_id,
        tenant=call.principal.tenant,
        owner=call.principal.id,
        goal=request.goal,
        mode=mode,
        context=dict(request.context),
        tools=tuple(chosen.specs),
        max_iterations=chosen.iterations,
        trace_id=call.trace_id,
        labels=dict(request.labels),
        time_limit_seconds=request.timeout_seconds or None,
        wait_limit_seconds=request.wait_timeout_seconds or None,
        spend_limit=request.spend_limit,
        plan=plan,
        total_steps=len(plan.steps) if plan is not None else 0,
        agent=chosen.agent,
        bypass_tool_cache=request.bypass_tool_cache,
        conversation_id=request.conversation_id,
        replay=request.replay,
        parent_task_id=parent.task_id if parent else "",
        root_task_id=parent.root_task_id if parent else "",
        depth=parent.depth if parent else 0,
        lineage=parent.lineage if parent else (),
        carried=parent.carried if parent else (),
        delegates=chosen.delegates,
    )


def _agent_routes(chosen: Chosen) -> bool:
    return chosen.agent is not None and bool(chosen.agent.models.get("router"))


@dataclass(frozen=True, slots=True)
class StartKeys:
    """The idempotency keys of requests to start a task, per tenant and caller: the first
    request with a key reserves it for its task, a retry finds that task's id, and a
    request refused after it reserved its key gives the key back (a retry may succeed)."""

    keys: IdempotencyStore
    ttl_seconds: float
    """How long a key is kept."""

    def _scoped(self, request: TaskRequest, call: CallContext) -> str:
        principal = call.principal
        return scoped_key("exec", principal.tenant, principal.id, request.idempotency_key)

    async def earlier(self, request: TaskRequest, call: CallContext, task_id: str) -> str | None:
        """The id of the task an earlier request with the same key started, if any; else the
        key is reserved for `task_id` (None also for a request without a key). The
        fingerprint is of the request as sent, before any agent's defaults:
        IdempotencyConflictError (naming the key) when the earlier request was another."""
        if not request.idempotency_key:
            return None
        scoped, fingerprint = self._scoped(request, call), request.fingerprint()
        try:
            return await self.keys.reserve(scoped, fingerprint, task_id, self.ttl_seconds)
        except IdempotencyConflictError:
            raise IdempotencyConflictError(request.idempotency_key) from None

    async def release(self, request: TaskRequest, call: CallContext) -> None:
        """Give the request's key back (if it has one), even when the caller is cancelled."""
        if request.idempotency_key:
            await asyncio.shield(self.keys.release(self._scoped(request, call)))
