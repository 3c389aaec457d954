"""The synchronous `AgentClient`: the async client's methods on grpc's blocking channel."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from types import TracebackType
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from agentd.v1 import agent_service_pb2 as pb
from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from agentd.v1 import events_pb2, memory_pb2_grpc, tasks_pb2, tools_pb2
from agentd_client import requests as build
from agentd_client.client import BusyPolicy
from agentd_client.environment import call_metadata, default_target
from agentd_client.files.artifacts import Part, SyncArtifactMethods
from agentd_client.requests import AuditKind, Decision, to_struct
from agentd_client.status_details import from_rpc_error
from agentd_client.sync.agents import SyncAgentMethods
from agentd_client.sync.conversations import SyncConversationMethods
from agentd_client.sync.evals import SyncEvalMethods
from agentd_client.sync.grants import SyncGrantMethods
from agentd_client.sync.inbox import SyncInboxMethods
from agentd_client.sync.knowledge import SyncKnowledgeMethods
from agentd_client.sync.replays import SyncReplayMethods
from agentd_client.sync.schedules import SyncScheduleMethods
from agentd_client.sync.traces import SyncTraceMethods
from agentd_client.sync.triggers import SyncTriggerMethods


class AgentClient(
    SyncArtifactMethods,
    SyncConversationMethods,
    SyncAgentMethods,
    SyncKnowledgeMethods,
    SyncGrantMethods,
    SyncInboxMethods,
    SyncReplayMethods,
    SyncTraceMethods,
    SyncEvalMethods,
    SyncTriggerMethods,
    SyncScheduleMethods,
):
    """A blocking client over one channel (safe to share between threads). Use as a
    context manager, or call `close()`. Its arguments are the async client's: `target`
    defaults to `AGENTD_ADDRESS` (else 127.0.0.1:50051), `api_key` to `AGENTD_API_KEY`."""

    def __init__(
        self,
        target: str | None = None,
        *,
        api_key: str | None = None,
        bearer_token: str | None = None,
        timeout: float | None = 30.0,
        metadata: Sequence[tuple[str, str]] = (),
        channel: grpc.Channel | None = None,
    ) -> None:
        self.target = target or default_target()
        """The server this client talks to (unless it was given a channel)."""
        self._channel = channel or grpc.insecure_channel(self.target)
        self._owns_channel = channel is None
        self._stub = pb_grpc.AgentServiceStub(self._channel)
        self._memory = memory_pb2_grpc.MemoryServiceStub(self._channel)
        self._health = health_pb2_grpc.HealthStub(self._channel)
        self._timeout = timeout
        self._metadata = call_metadata(api_key, bearer_token, metadata)

    def __enter__(self) -> AgentClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        if self._owns_channel:
            self._channel.close()

    def _unary(self, call: Any, request: Any, timeout: float | None) -> Any:
        deadline = timeout if timeout is not None else self._timeout
        try:
            return call(request, timeout=deadline, metadata=self._metadata)
        except grpc.RpcError as error:
            raise from_rpc_error(error) from None

    def _stream(
        self, call: Any, request: Any, timeout: float | None, heartbeats: bool
    ) -> Iterator[events_pb2.TaskEvent]:
        # Streams last as long as their task: no default deadline. The call starts when
        # the iteration does; leaving it (break, an exception, garbage) cancels it.
        stream = call(request, timeout=timeout, metadata=self._metadata)
        try:
            for event in stream:
                if event.sequence == 0 and not heartbeats:
                    continue  # a heartbeat: the stream is alive, the task quiet; not an event
                yield event
        except grpc.RpcError as error:
            raise from_rpc_error(error) from None
        finally:
            stream.cancel()

    def list_tools(
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
        response: pb.ListToolsResponse = self._unary(self._stub.ListTools, request, timeout)
        return list(response.tools)

    def call_tool(
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
        response: pb.CallToolResponse = self._unary(self._stub.CallTool, request, timeout)
        return response

    def get_task(self, task_id: str, *, timeout: float | None = None) -> tasks_pb2.Task:
        request = pb.GetTaskRequest(task_id=task_id)
        task: tasks_pb2.Task = self._unary(self._stub.GetTask, request, timeout)
        return task

    def cancel_task(
        self, task_id: str, reason: str = "", *, timeout: float | None = None
    ) -> tasks_pb2.Task:
        request = pb.CancelTaskRequest(task_id=task_id, reason=reason)
        task: tasks_pb2.Task = self._unary(self._stub.CancelTask, request, timeout)
        return task

    def steer_task(
        self,
        task_id: str,
        message: str,
        *,
        idempotency_key: str = "",
        timeout: float | None = None,
    ) -> pb.SteerTaskResponse:
        """Add a user message to a task (`AgentClient.steer_task`)."""
        request = pb.SteerTaskRequest(
            task_id=task_id, message=message, idempotency_key=idempotency_key
        )
        steered: pb.SteerTaskResponse = self._unary(self._stub.SteerTask, request, timeout)
        return steered

    def plan(
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
        response: pb.PlanResponse = self._unary(self._stub.Plan, request, timeout)
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
    ) -> Iterator[events_pb2.TaskEvent]:
        """Start a task and iterate over its events; the first carries the task id. As
        the async client's `execute`."""
        request = build.execute_request(
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

    def start_task(
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
        request = build.execute_request(
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
        started: tasks_pb2.Task = self._unary(self._stub.StartTask, request, timeout)
        return started

    def list_tasks(
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
        """One page of your tasks, newest first; pass `next_page_token` back for the next
        (filters as the async client's)."""
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
        response: pb.ListTasksResponse = self._unary(self._stub.ListTasks, request, timeout)
        return response

    def stream_task_events(
        self,
        task_id: str,
        after_sequence: int = 0,
        *,
        timeout: float | None = None,
        heartbeats: bool = False,
    ) -> Iterator[events_pb2.TaskEvent]:
        """Replay a task's events after `after_sequence`, then follow it live."""
        request = pb.StreamTaskEventsRequest(task_id=task_id, after_sequence=after_sequence)
        return self._stream(self._stub.StreamTaskEvents, request, timeout, heartbeats)

    def approve_tool_call(
        self,
        task_id: str,
        call_id: str,
        decision: Decision,
        *,
        arguments: Mapping[str, Any] | None = None,
        comment: str = "",
        timeout: float | None = None,
    ) -> tasks_pb2.Task:
        """Decide on a call a task waits on; `arguments` go with "edit" only."""
        request = build.approve_request(task_id, call_id, decision, arguments, comment)
        task: tasks_pb2.Task = self._unary(self._stub.ApproveToolCall, request, timeout)
        return task

    def resume_task(
        self, task_id: str, comment: str = "", *, timeout: float | None = None
    ) -> tasks_pb2.Task:
        """Resume a task that waits after a tool call failed for a reason a person can fix
        (its `tool_resumable` event): that call runs again and the task goes on."""
        request = pb.ResumeTaskRequest(task_id=task_id, comment=comment)
        task: tasks_pb2.Task = self._unary(self._stub.ResumeTask, request, timeout)
        return task

    def provide_input(
        self, task_id: str, request_id: str, text: str, *, timeout: float | None = None
    ) -> tasks_pb2.Task:
        """Answer a question a task's agent asked (its `input_requested` event)."""
        request = pb.ProvideInputRequest(task_id=task_id, request_id=request_id, text=text)
        task: tasks_pb2.Task = self._unary(self._stub.ProvideInput, request, timeout)
        return task

    def list_audit_records(
        self,
        kind: AuditKind,
        *,
        principal_id: str = "",
        tool_name: str = "",
        outcome: str = "",
        task_id: str = "",
        since: datetime | None = None,
        until: datetime | None = None,
        page_size: int = 0,
        page_token: str = "",
        timeout: float | None = None,
        check: str = "",
    ) -> pb.ListAuditRecordsResponse:
        """One page of your tenant's audit records, oldest first (auditor or admin role);
        `check` keeps the decisions of one guardrail check (kind "guardrail")."""
        request = build.audit_request(
            kind,
            principal_id,
            tool_name,
            outcome,
            task_id,
            since,
            until,
            page_size,
            page_token,
            check=check,
        )
        response: pb.ListAuditRecordsResponse = self._unary(
            self._stub.ListAuditRecords, request, timeout
        )
        return response

    def health(self, service: str = "", *, timeout: float | None = None) -> str:
        """The serving status name (SERVING, NOT_SERVING, ...) of the server or a service."""
        request = health_pb2.HealthCheckRequest(service=service)
        response: health_pb2.HealthCheckResponse = self._unary(self._health.Check, request, timeout)
        return str(health_pb2.HealthCheckResponse.ServingStatus.Name(response.status))
