"""`tools/call` of an agent: an agentd task started as the caller (the engine's
StartTask/Execute path: admission, grants, budgets; labelled `agentd.via=mcp`), followed
through its events (each a progress notification when the client sent a progressToken)
to its answer, or to a wait for a person (`server.mcp.waits`). A retry carrying
`requestState` answers that wait and follows the task on, on whichever replica it
reaches. A refusal (no grant for the agent, a limit, a bad argument) is an error result
naming its reason."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import NoBackChannelError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from starlette.requests import Request

from agent.definitions.catalog import Agents
from agent.definitions.selection import resolve
from agent.engine import Engine
from core.errors import AgentdError, AgentNotFoundError, FieldViolation, InvalidArgumentError
from core.identity import CallContext
from core.keyring import KeyRing
from records import events as ev
from records.requests import TaskRequest
from records.tasks import Task, TaskStatus
from records.tools.approvals import ApprovalDecision
from server.http.door import audited, call_of
from server.mcp import state, waits
from server.mcp.catalog import DEFAULT, AgentTools
from server.mcp.files import parts_of
from server.mcp.state import Waiting
from server.services.tasks import TaskService
from server.status import status_code_for

VIA = {"agentd.via": "mcp"}
"""The label of every task an MCP call starts."""

Context = ServerRequestContext[Any, Any]


def _text(text: str, *, error: bool = False, task_id: str = "") -> types.CallToolResult:
    meta = {"agentd/task_id": task_id} if task_id else None
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=error, meta=meta)


def error_result(request: Request, error: AgentdError, task_id: str = "") -> types.CallToolResult:
    """A refused call: an error result naming its reason, audited under its gRPC code."""
    audited(request, status_code_for(error).name, task_id)
    return _text(f"{error.reason}: {error.message}", error=True, task_id=task_id)


def _progress(payload: object) -> str:
    """The progress message of an event ("" for one not worth telling)."""
    if isinstance(payload, ev.StepStarted):
        return f"step {payload.index + 1}: {payload.description}"
    if isinstance(payload, ev.ToolCallStarted):
        return f"calling {payload.tool_name}"
    if isinstance(payload, ev.ToolCallFinished):
        return f"{payload.tool_name} answered"
    if isinstance(payload, ev.StatusChanged):
        return f"task {payload.current.value}"
    return ""


def _goal(arguments: Mapping[str, Any] | None) -> tuple[str, dict[str, Any]]:
    args = arguments or {}
    task, context = args.get("task"), args.get("context", {})
    problems = []
    if not isinstance(task, str) or not task.strip():
        problems.append(FieldViolation("arguments.task", "a non-empty string is required"))
    if not isinstance(context, dict):
        problems.append(FieldViolation("arguments.context", "must be an object"))
    if problems:
        raise InvalidArgumentError(problems)
    assert isinstance(task, str)
    assert isinstance(context, dict)
    return task, context


class AgentCalls:
    """The `tools/call` handler of agent tools."""

    def __init__(
        self, engine: Engine, tasks: TaskService, agents: Agents, catalog: AgentTools, ring: KeyRing
    ) -> None:
        self._engine = engine
        self._tasks = tasks
        self._agents = agents
        self._catalog = catalog
        self._ring = ring

    async def call(
        self, ctx: Context, params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        request = ctx.request
        assert isinstance(request, Request), "the MCP server runs behind the HTTP address"
        call = call_of(request)
        task_id = ""
        try:
            if params.request_state is not None:
                waiting = state.opened(self._ring, call.principal, params.request_state)
                task_id = waiting.task_id
                await self._answer(call, waiting, params.input_responses)
                task, after = await self._engine.find(call.principal.tenant, task_id), waiting.after
            else:
                task, after = await self._start(call, params)
                task_id = task.task_id
            audited(request, "OK", task_id)
            # Its id first: a client that loses the call still finds its task (GetTask).
            await ctx.session.report_progress(0, None, f"task {task_id}")
            return await self._follow(ctx, call, task, after)
        except AgentdError as error:
            return error_result(request, error, task_id)

    async def _start(
        self, call: CallContext, params: types.CallToolRequestParams
    ) -> tuple[Task, int]:
        goal, context = _goal(params.arguments)
        reference = params.name
        try:
            agent = await resolve(self._agents, call.principal.tenant, reference)
        except AgentNotFoundError:
            if reference != DEFAULT:
                raise
            agent, reference = None, ""  # the default agent, as StartTask runs it
        if agent is not None:
            self._catalog.check(call, agent)
        parts = parts_of((params.arguments or {}).get("files"))
        request = TaskRequest(goal=goal, context=context, agent=reference, labels=VIA, parts=parts)
        return await self._engine.start_or_steer(request, call)

    async def _answer(
        self, call: CallContext, waiting: Waiting, responses: Mapping[str, object] | None
    ) -> None:
        """The person's answer, applied as ApproveToolCall / ProvideInput apply it."""
        yes, text = waits.answer_of(waiting, (responses or {}).get(waits.KEY))
        await self._apply(call, waiting, yes, text)

    async def _apply(self, call: CallContext, waiting: Waiting, yes: bool, text: str) -> None:
        if waiting.kind == "approval":
            decision = ApprovalDecision(yes, call.principal.id, text)
            await self._engine.approve(call, waiting.task_id, waiting.ref, decision)
        else:
            await self._engine.provide_input(call, waiting.task_id, waiting.ref, text)

    async def _follow(
        self, ctx: Context, call: CallContext, task: Task, after: int
    ) -> types.CallToolResult | types.InputRequiredResult:
        """The task's events after `after` as progress, to its end or a wait."""
        told = 0
        while True:
            waiting: Waiting | None = None
            async for event in self._tasks.live(task.tenant, task.task_id, after):
                message = _progress(event.payload)
                if message:
                    told += 1
                    await ctx.session.report_progress(told, None, message)
                waiting = waits.waiting_of(task.task_id, event)
                if waiting is not None:
                    form = waits.asked(event)
                    break
                if event.terminal:
                    break
            if waiting is None:
                return _result(await self._engine.find(task.tenant, task.task_id))
            told_now = await self._tell(ctx, call, waiting, form)
            if told_now is not None:
                return told_now
            after = waiting.after  # answered on the live session: follow on

    async def _tell(
        self, ctx: Context, call: CallContext, waiting: Waiting, form: types.ElicitRequestFormParams
    ) -> types.CallToolResult | types.InputRequiredResult | None:
        """The result telling the caller of the wait; None once the caller answered it on
        its live session (an older client's `elicitation/create`)."""
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            sealed = state.seal(self._ring, call.principal, waiting)
            if sealed is None:
                return waits.in_the_inbox(waiting, "no AGENTD_KEYS to seal its request state")
            return waits.input_required(form, sealed)
        capabilities = ctx.session.client_capabilities
        if capabilities is None or capabilities.elicitation is None:
            return waits.in_the_inbox(waiting, "the client declared no elicitation")
        try:
            reply = await ctx.session.elicit_form(form.message, form.requested_schema)
        except NoBackChannelError:
            return waits.in_the_inbox(waiting, "stateless HTTP carries no request to the client")
        yes, text = waits.answer_of(waiting, reply)
        await self._apply(call, waiting, yes, text)
        return None


def _result(task: Task) -> types.CallToolResult:
    if task.status is TaskStatus.COMPLETED:
        return _text(task.final_answer, task_id=task.task_id)
    why = task.failure.message if task.failure is not None else task.stop_detail
    return _text(
        f"task {task.task_id} {task.status.value}: {why or 'no answer'}",
        error=True,
        task_id=task.task_id,
    )
