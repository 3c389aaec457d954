"""Tasks: start one (streamed or not), plan, follow, get, list, cancel, and move a waiting
one on (approve a tool call, answer a question, resume after a tool failure)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import ClassVar

from agent.engine import Engine
from agent.running.artifacts import TaskArtifacts
from agentd.v1 import agent_service_pb2 as pb
from agentd.v1 import events_pb2, tasks_pb2
from core.identity import CallContext
from records.events import TaskEvent, TaskSteered
from server.calls import stream, unary
from server.convert import artifacts as convert_artifacts
from server.convert import events as convert_events
from server.convert import pages
from server.convert import tasks as convert
from server.heartbeats import with_heartbeats
from server.interceptors.audit import note_task
from server.rpcs.common import required_id
from server.rpcs.task_query import task_query
from server.services.tasks import TaskService


class TaskRpcs:
    RPCS: ClassVar[tuple[str, ...]] = (
        "Execute",
        "StartTask",
        "Plan",
        "GetTask",
        "ListTasks",
        "CancelTask",
        "StreamTaskEvents",
        "ApproveToolCall",
        "ProvideInput",
        "ResumeTask",
        "SteerTask",
    )

    def __init__(
        self,
        engine: Engine,
        tasks: TaskService,
        artifacts: TaskArtifacts,
        *,
        heartbeat_seconds: float = 15.0,
    ) -> None:
        self._engine = engine
        self._tasks = tasks
        self._artifacts = artifacts
        self._heartbeat_seconds = heartbeat_seconds

    async def _follow(
        self, tenant: str, task_id: str, events: AsyncIterator[TaskEvent]
    ) -> AsyncIterator[events_pb2.TaskEvent]:
        """A task's events as protos, with a heartbeat when the task is quiet."""
        async for event in with_heartbeats(events, self._heartbeat_seconds):
            if event is None:
                yield convert_events.heartbeat(await self._engine.find(tenant, task_id))
            else:
                yield convert_events.event_to_proto(event)

    @stream
    async def Execute(  # noqa: N802 - gRPC method name
        self, request: pb.ExecuteRequest, call: CallContext
    ) -> AsyncIterator[events_pb2.TaskEvent]:
        task, after = await self._engine.start_or_steer(convert.task_request(request), call)
        note_task(task.task_id)
        events = self._tasks.live(task.tenant, task.task_id, after)
        ended = False
        try:
            async for message in self._follow(task.tenant, task.task_id, events):
                yield message
            ended = True
        finally:
            if request.cancel_on_disconnect and not ended:
                await self._engine.cancel_quietly(
                    task.tenant, task.task_id, "the caller disconnected"
                )

    @unary
    async def StartTask(  # noqa: N802
        self, request: pb.ExecuteRequest, call: CallContext
    ) -> tasks_pb2.Task:
        task, _ = await self._engine.start_or_steer(convert.task_request(request), call)
        note_task(task.task_id)
        return convert.task_to_proto(task)

    @unary
    async def Plan(self, request: pb.PlanRequest, call: CallContext) -> pb.PlanResponse:  # noqa: N802
        context = convert.struct_to_dict(request.context, "context")
        plan = await self._engine.plan(
            request.task, list(request.tools), context, call, request.agent
        )
        return pb.PlanResponse(plan=convert.plan_to_proto(plan))

    @unary
    async def GetTask(self, request: pb.GetTaskRequest, call: CallContext) -> tasks_pb2.Task:  # noqa: N802
        task_id = required_id(request.task_id, "task_id")
        note_task(task_id)
        task = await self._engine.find(call.principal.tenant, task_id)
        answer = convert.task_to_proto(task)
        summaries = await self._artifacts.summaries(task)
        answer.artifacts.extend(convert_artifacts.summaries_to_proto(summaries))
        return answer

    @unary
    async def ListTasks(  # noqa: N802
        self, request: pb.ListTasksRequest, call: CallContext
    ) -> pb.ListTasksResponse:
        query = task_query(request, call.principal, pages.page_size(request.page_size))
        page = await self._tasks.page(query)
        return pb.ListTasksResponse(
            tasks=[convert.task_to_proto(t) for t in page.items],
            next_page_token=pages.token(page.next),
        )

    @unary
    async def CancelTask(  # noqa: N802
        self, request: pb.CancelTaskRequest, call: CallContext
    ) -> tasks_pb2.Task:
        task_id = required_id(request.task_id, "task_id")
        note_task(task_id)
        detail = request.reason or f"cancelled by {call.principal.id}"
        task = await self._engine.cancel(call.principal.tenant, task_id, detail)
        return convert.task_to_proto(task)

    @stream
    async def StreamTaskEvents(  # noqa: N802
        self, request: pb.StreamTaskEventsRequest, call: CallContext
    ) -> AsyncIterator[events_pb2.TaskEvent]:
        task_id = required_id(request.task_id, "task_id")
        note_task(task_id)
        tenant = call.principal.tenant
        events = self._tasks.resumed(tenant, task_id, request.after_sequence)
        async for message in self._follow(tenant, task_id, events):
            yield message

    @unary
    async def ApproveToolCall(  # noqa: N802
        self, request: pb.ApproveToolCallRequest, call: CallContext
    ) -> tasks_pb2.Task:
        task_id = required_id(request.task_id, "task_id")
        call_id = required_id(request.call_id, "call_id")
        note_task(task_id)
        decision = convert.approval_decision(request, call.principal.id)
        task = await self._engine.approve(call, task_id, call_id, decision)
        return convert.task_to_proto(task)

    @unary
    async def ProvideInput(  # noqa: N802
        self, request: pb.ProvideInputRequest, call: CallContext
    ) -> tasks_pb2.Task:
        task_id = required_id(request.task_id, "task_id")
        request_id = required_id(request.request_id, "request_id")
        note_task(task_id)
        task = await self._engine.provide_input(call, task_id, request_id, request.text)
        return convert.task_to_proto(task)

    @unary
    async def ResumeTask(  # noqa: N802
        self, request: pb.ResumeTaskRequest, call: CallContext
    ) -> tasks_pb2.Task:
        task_id = required_id(request.task_id, "task_id")
        note_task(task_id)
        task = await self._engine.resume_task(call, task_id, request.comment)
        return convert.task_to_proto(task)

    @unary
    async def SteerTask(  # noqa: N802
        self, request: pb.SteerTaskRequest, call: CallContext
    ) -> pb.SteerTaskResponse:
        task_id = required_id(request.task_id, "task_id")
        note_task(task_id)
        task, event = await self._engine.steer(
            call, task_id, request.message, request.idempotency_key
        )
        steer_id = event.payload.steer_id if isinstance(event.payload, TaskSteered) else ""
        return pb.SteerTaskResponse(
            task=convert.task_to_proto(task), steer_id=steer_id, sequence=event.sequence
        )
