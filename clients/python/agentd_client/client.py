"""`AgentClient`: a typed async client for agentd.v1.AgentService.

    import asyncio
    from agentd_client import AgentClient

    async def main() -> None:
        async with AgentClient() as client:  # AGENTD_ADDRESS, AGENTD_API_KEY
            result = await client.call_tool("calculator", {"expression": "2 + 2"})
            print(result.text)

    asyncio.run(main())

Every method raises a subclass of `agentd_client.errors.AgentdError` on failure.
Streams (`execute`, `stream_task_events`) are async iterators; breaking out
of one cancels the call. `agentd_client.sync.AgentClient` has the same methods
for code that is not async.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from datetime import datetime
from types import TracebackType
from typing import Any, Literal, TypeVar

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from agentd.v1 import agent_service_pb2 as pb
from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from agentd.v1 import events_pb2, memory_pb2_grpc, tasks_pb2, tools_pb2
from agentd_client import requests as build
from agentd_client.agents import AgentMethods
from agentd_client.audit import AuditMethods
from agentd_client.conversations import ConversationMethods
from agentd_client.environment import DEFAULT_TARGET as DEFAULT_TARGET  # re-exported
from agentd_client.environment import call_metadata, default_target
from agentd_client.evals.methods import EvalMethods
from agentd_client.files.artifacts import ArtifactMethods, Part
from agentd_client.grants import GrantMethods
from agentd_client.inbox import InboxMethods
from agentd_client.knowledge import KnowledgeMethods
from agentd_client.recorded.replays import ReplayMethods
from agentd_client.recorded.traces import TraceMethods
from agentd_client.requests import Decision
from agentd_client.requests import execute_request as _execute_request
from agentd_client.requests import to_python as to_python  # re-exported: part of the API
from agentd_client.requests import to_struct as to_struct
from agentd_client.scheduled.methods import ScheduleMethods
from agentd_client.status_details import from_rpc_error
from agentd_client.triggers.methods import TriggerMethods
from agentd_client.usage import UsageMethods
from agentd_client.webhooks import WebhookMethods

T = TypeVar("T")


BusyPolicy = Literal["reject", "enqueue", "interrupt", "steer", "follow_up"]


class AgentClient(
    ArtifactMethods,
    ConversationMethods,
    AgentMethods,
    KnowledgeMethods,
    GrantMethods,
    AuditMethods,
    UsageMethods,
    InboxMethods,
    WebhookMethods,
    ReplayMethods,
    TraceMethods,
    EvalMethods,
    TriggerMethods,
    ScheduleMethods,
):
    """An async client over one channel. Use as an async context manager, or call `close()`.

    `target` (host:port) defaults to `AGENTD_ADDRESS`, else 127.0.0.1:50051; `api_key`
    to `AGENTD_API_KEY` (pass "" to send none); a `bearer_token` (a JWT) is sent instead
    of a key. `timeout` is the deadline of each unary call (streams have none)."""

    def __init__(
        self,
        target: str | None = None,
        *,
        api_key: str | None = None,
        bearer_token: str | None = None,
        timeout: float | None = 30.0,
        metadata: Sequence[tuple[str, str]] = (),
        channel: grpc.aio.Channel | None = None,
    ) -> None:
        self.target = target or default_target()
        """The server this client talks to (unless it was given a channel)."""
        self._channel = channel or grpc.aio.insecure_channel(self.target)
        self._owns_channel = channel is None
        self._stub = pb_grpc.AgentServiceStub(self._channel)
        self._health = health_pb2_grpc.HealthStub(self._channel)
        self._memory = memory_pb2_grpc.MemoryServiceStub(self._channel)
        self._timeout = timeout
        self._metadata = call_metadata(api_key, bearer_token, metadata)

    async def __aenter__(self) -> AgentClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        if self._owns_channel:
            await self._channel.close(None)

    def _options(self, timeout: float | None) -> dict[str, Any]:
        return {
            "timeout": timeout if timeout is not None else self._timeout,
            "metadata": self._metadata,
        }

    async def _unary(self, call: Any, request: Any, timeout: float | None) -> Any:
        try:
            return await call(request, **self._options(timeout))
        except grpc.aio.AioRpcError as error:
            raise from_rpc_error(error) from None

    async def _stream(
        self, call: Any, request: Any, timeout: float | None, heartbeats: bool = False
    ) -> AsyncIterator[events_pb2.TaskEvent]:
        # Streams last as long as their task: no default deadline.
        stream = call(request, timeout=timeout, metadata=self._metadata)
        try:
            async for event in stream:
                if event.sequence == 0 and not heartbeats:
                    continue  # a heartbeat: the stream is alive, the task quiet; not an event
                yield event
        except grpc.aio.AioRpcError as error:
            raise from_rpc_error(error) from None
        finally:
            stream.cancel()

    async def list_tools(
        self,
        category: str = "",
        *,
        agent: str = "",
        toolset: str = "",
        timeout: float | None = None,
    ) -> list[tools_pb2.Tool]:
        """The tools you may use (of `category`; of `toolset`; those a task of `agent` may
        use)."""
        request = pb.ListToolsRequest(category=category, agent=agent, toolset=toolset)
        response: pb.ListToolsResponse = await self._unary(self._stub.ListTools, request, timeout)
        return list(response.tools)

    async def call_tool(
        self,
        tool_name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        idempotency_key: str = "",
        timeout: float | None = None,
    ) -> pb.CallToolResponse:
        request = pb.CallToolRequest(
            tool_name=tool_name, arguments=to_struct(arguments), idempotency_key=idempotency_key
        )
        response: pb.CallToolResponse = await self._unary(self._stub.CallTool, request, timeout)
        return response

    async def get_task(self, task_id: str, *, timeout: float | None = None) -> tasks_pb2.Task:
        task: tasks_pb2.Task = await self._unary(
            self._stub.GetTask, pb.GetTaskRequest(task_id=task_id), timeout
        )
        return task

    async def cancel_task(
        self, task_id: str, reason: str = "", *, timeout: float | None = None
    ) -> tasks_pb2.Task:
        task: tasks_pb2.Task = await self._unary(
            self._stub.CancelTask, pb.CancelTaskRequest(task_id=task_id, reason=reason), timeout
        )
        return task

    async def steer_task(
        self,
        task_id: str,
        message: str,
        *,
        idempotency_key: str = "",
        timeout: float | None = None,
    ) -> pb.SteerTaskResponse:
        """Add a user message to a task that runs, waits or is queued: it is in the task's
        log when this returns, and the task takes it at its next safe point (after the
        tool calls being made, before its next model call). `sequence - 1` is where to
        follow the task from (`stream_task_events(after_sequence=...)`)."""
        request = pb.SteerTaskRequest(
            task_id=task_id, message=message, idempotency_key=idempotency_key
        )
        steered: pb.SteerTaskResponse = await self._unary(self._stub.SteerTask, request, timeout)
        return steered

    async def plan(
        self,
        task: str,
        *,
        tools: Sequence[str] = (),
        context: Mapping[str, Any] | None = None,
        agent: str = "",
        timeout: float | None = None,
    ) -> tasks_pb2.Plan:
        request = pb.PlanRequest(
            task=task, tools=list(tools), context=to_struct(context), agent=agent
        )
        response: pb.PlanResponse = await self._unary(self._stub.Plan, request, timeout)
        return response.plan

    def execute(
        self,
        task: str,
        *,
        tools: Sequence[str] = (),
        context: Mapping[str, Any] | None = None,
        max_iterations: int = 0,
        mode: tasks_pb2.ExecutionMode.ValueType = tasks_pb2.EXECUTION_MODE_AUTO,
        idempotency_key: str = "",
        token_budget: int = 0,
        spend_limit: int = 0,
        cancel_on_disconnect: bool = False,
        task_timeout: float | None = None,
        wait_timeout: float | None = None,
        labels: Mapping[str, str] | None = None,
        plan: tasks_pb2.Plan | None = None,
        agent: str = "",
        conversation_id: str = "",
        busy_policy: BusyPolicy = "reject",
        parts: Sequence[Part] = (),
        timeout: float | None = None,
        heartbeats: bool = False,
    ) -> AsyncIterator[events_pb2.TaskEvent]:
        """Start a task and iterate over its events; the first carries the task id.

        `plan` (as `plan()` returned it, possibly edited) is run as given, without planning first.
        `conversation_id` makes the task the next turn of a conversation (`create_conversation`);
        `busy_policy` says what happens while another of its tasks runs. `timeout` is this call's
        deadline: it ends the stream, never the task (whose own limit is `task_timeout`;
        `wait_timeout` bounds how long it may wait, parked, for people, children or remote agents;
        `spend_limit` what its model calls may cost, its children's included, in micro-units of the
        server's currency). Heartbeats (sequence 0) are skipped unless asked for.
        """
        request = _execute_request(
            task,
            tools,
            context,
            max_iterations,
            mode,
            idempotency_key,
            token_budget,
            task_timeout,
            labels,
            plan,
            agent,
            conversation_id,
            busy_policy,
            wait_timeout,
            parts,
            spend_limit,
        )
        request.cancel_on_disconnect = cancel_on_disconnect
        return self._stream(self._stub.Execute, request, timeout, heartbeats)

    async def start_task(
        self,
        task: str,
        *,
        tools: Sequence[str] = (),
        context: Mapping[str, Any] | None = None,
        max_iterations: int = 0,
        mode: tasks_pb2.ExecutionMode.ValueType = tasks_pb2.EXECUTION_MODE_AUTO,
        idempotency_key: str = "",
        token_budget: int = 0,
        spend_limit: int = 0,
        task_timeout: float | None = None,
        wait_timeout: float | None = None,
        labels: Mapping[str, str] | None = None,
        plan: tasks_pb2.Plan | None = None,
        agent: str = "",
        conversation_id: str = "",
        busy_policy: BusyPolicy = "reject",
        parts: Sequence[Part] = (),
        timeout: float | None = None,
    ) -> tasks_pb2.Task:
        """Start a task with no stream attached; follow it with `stream_task_events`."""
        request = _execute_request(
            task,
            tools,
            context,
            max_iterations,
            mode,
            idempotency_key,
            token_budget,
            task_timeout,
            labels,
            plan,
            agent,
            conversation_id,
            busy_policy,
            wait_timeout,
            parts,
            spend_limit,
        )
        started: tasks_pb2.Task = await self._unary(self._stub.StartTask, request, timeout)
        return started

    async def list_tasks(
        self,
        *,
        statuses: Sequence[tasks_pb2.TaskStatus.ValueType] = (),
        page_size: int = 0,
        page_token: str = "",
        labels: Mapping[str, str] | None = None,
        agent: str = "",
        conversation_id: str = "",
        created_after: datetime | None = None,
        created_before: datetime | None = None,
        parent_task_id: str = "",
        timeout: float | None = None,
    ) -> pb.ListTasksResponse:
        """One page of your tasks, newest first; pass `next_page_token` back for the next.
        Filters: any of `statuses`, every one of `labels`, the `agent` a task ran as (`id`
        or `id@version`), its `conversation_id`, its creation time, its parent task (the
        children of `parent_task_id`: its delegations and panel members)."""
        request = build.list_tasks_request(
            statuses,
            page_size,
            page_token,
            labels,
            agent,
            conversation_id,
            created_after,
            created_before,
            parent_task_id,
        )
        response: pb.ListTasksResponse = await self._unary(self._stub.ListTasks, request, timeout)
        return response

    def stream_task_events(
        self,
        task_id: str,
        after_sequence: int = 0,
        *,
        timeout: float | None = None,
        heartbeats: bool = False,
    ) -> AsyncIterator[events_pb2.TaskEvent]:
        """Replay a task's events after `after_sequence`, then follow it live."""
        request = pb.StreamTaskEventsRequest(task_id=task_id, after_sequence=after_sequence)
        return self._stream(self._stub.StreamTaskEvents, request, timeout, heartbeats)

    async def approve_tool_call(
        self,
        task_id: str,
        call_id: str,
        decision: Decision,
        *,
        arguments: Mapping[str, Any] | None = None,
        comment: str = "",
        timeout: float | None = None,
    ) -> tasks_pb2.Task:
        """Decide on a call a task waits on (see its `approval_requested` event); `arguments`
        go with "edit" only."""
        request = build.approve_request(task_id, call_id, decision, arguments, comment)
        task: tasks_pb2.Task = await self._unary(self._stub.ApproveToolCall, request, timeout)
        return task

    async def provide_input(
        self, task_id: str, request_id: str, text: str, *, timeout: float | None = None
    ) -> tasks_pb2.Task:
        """Answer a question a task's agent asked (its `input_requested` event)."""
        request = pb.ProvideInputRequest(task_id=task_id, request_id=request_id, text=text)
        task: tasks_pb2.Task = await self._unary(self._stub.ProvideInput, request, timeout)
        return task

    async def resume_task(
        self, task_id: str, comment: str = "", *, timeout: float | None = None
    ) -> tasks_pb2.Task:
        """Resume a task that waits after a tool call failed for a reason a person can fix
        (its `tool_resumable` event): that call runs again and the task goes on. Raises
        TaskNotResumableError when no call of it waits (its window closed, say)."""
        request = pb.ResumeTaskRequest(task_id=task_id, comment=comment)
        task: tasks_pb2.Task = await self._unary(self._stub.ResumeTask, request, timeout)
        return task

    async def health(self, service: str = "", *, timeout: float | None = None) -> str:
        """The serving status name (SERVING, NOT_SERVING, ...) of the server or a service."""
        response: health_pb2.HealthCheckResponse = await self._unary(
            self._health.Check, health_pb2.HealthCheckRequest(service=service), timeout
        )
        return str(health_pb2.HealthCheckResponse.ServingStatus.Name(response.status))
