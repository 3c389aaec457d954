"""The SDK's request-handler interface over agentd's engine: an A2A task is an agentd task
(same ids, stores, leases and takeover), a streamed update is an event of its durable log.

Every call runs as the principal the server's interceptors authenticated (its
`CallContext` travels in the SDK's `ServerCallContext.state`); the request's `tenant`
names the agentd agent. Errors are raised as agentd's own and mapped once, in
`server.a2a.errors`.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from a2a.server.context import ServerCallContext
from a2a.server.request_handlers.request_handler import RequestHandler
from a2a.types import a2a_pb2
from a2a.utils.errors import TaskNotCancelableError, UnsupportedOperationError

from agent.engine import Engine
from core.errors import TaskAlreadyTerminalError
from core.identity import CallContext
from records import events as ev
from records.requests import TaskRequest
from records.tasks import Task, TaskQuery, TaskStatus
from records.tools.approvals import ApprovalDecision
from server.a2a.card import CardMaker
from server.a2a.errors import translated
from server.a2a.parts import answer_of, busy_policy_of, decision_of, goal_of
from server.a2a.push_rpcs import PushRpcs
from server.convert import a2a as convert
from server.convert import pages
from server.interceptors.audit import note_task
from server.services.tasks import TaskService

CALL = "agentd_call"
"""The key of the call's `CallContext` in `ServerCallContext.state`."""
RESUME = "agentd_resume_after"
"""The key of the resume position (the `agentd-resume-after` header) in the state."""


def call_of(context: ServerCallContext) -> CallContext:
    call = context.state.get(CALL)
    assert isinstance(call, CallContext), "the A2A handler runs behind agentd's interceptors"
    return call


class AgentdRequestHandler(RequestHandler):
    """A2A's operations as agentd's: send starts or continues a task, streams follow its
    log, get/list/cancel are the engine's."""

    def __init__(
        self, engine: Engine, tasks: TaskService, cards: CardMaker, push: PushRpcs
    ) -> None:
        self._push = push
        self._engine = engine
        self._tasks = tasks
        self.cards = cards

    # -- reading ------------------------------------------------------------------------

    async def _view(
        self, task: Task, history_length: int | None = None, artifacts: bool = True
    ) -> a2a_pb2.Task:
        pending = None
        if task.status is TaskStatus.INPUT_REQUIRED:
            pending = convert.pending_in(await self._tasks.log(task))
        return convert.task_to_a2a(
            task, pending=pending, history_length=history_length, artifacts=artifacts
        )

    async def _follow(self, task: Task, after: int) -> AsyncGenerator[convert.Update]:
        """The task's A2A updates after `after`, until it ends or waits for the caller."""
        async for event in self._tasks.live(task.tenant, task.task_id, after):
            update = convert.update_of(task, event)
            if update is not None:
                yield update
            if convert.ends_stream(event):
                return

    # -- sending ------------------------------------------------------------------------

    async def _context_for(self, call: CallContext, message: a2a_pb2.Message) -> str:
        """The conversation of a new task: the message's context, else a new one (made once
        per message id, so that a retried message gets the same)."""
        if message.context_id:
            return message.context_id
        title = " ".join(answer_of(message).split())[:100] or "A2A"
        return await self._tasks.conversation_once(
            call.principal, "a2a-context", message.message_id, title, {"a2a": "true"}
        )

    async def _start(
        self, call: CallContext, params: a2a_pb2.SendMessageRequest
    ) -> tuple[Task, int]:
        """A task for a new message, in its context's conversation under the message's busy
        policy (a STEER steers the context's working task instead), its push notification
        config checked first (a refused one starts nothing); the task and the log position
        to follow it from."""
        message = params.message
        goal = goal_of(message)
        if params.configuration.HasField("task_push_notification_config"):
            await self._push.check(call, params.configuration.task_push_notification_config)
        request = TaskRequest(
            goal=goal.text,
            context=goal.context,
            idempotency_key=message.message_id,
            agent=params.tenant,
            conversation_id=await self._context_for(call, message),
            busy_policy=busy_policy_of(message),
            parts=goal.parts,
        )
        task, after = await self._engine.start_or_steer(request, call)
        note_task(task.task_id)
        if params.configuration.HasField("task_push_notification_config"):
            webhook = a2a_pb2.TaskPushNotificationConfig()
            webhook.CopyFrom(params.configuration.task_push_notification_config)
            webhook.task_id = task.task_id
            await self._push.create(call, webhook)
        return task, after

    async def _continue(
        self, call: CallContext, params: a2a_pb2.SendMessageRequest
    ) -> tuple[Task, int]:
        """A message to a task waiting for the caller: the answer to its question, or the
        decision on the tool call it waits to have approved; to a working task, a steer
        (`SteerTask`). The task, and the log position to follow it from."""
        message = params.message
        note_task(message.task_id)
        task = await self._engine.find(call.principal.tenant, message.task_id)
        if message.context_id and message.context_id != task.conversation_id:
            raise UnsupportedOperationError("the message's context_id is not its task's")
        if task.status in (TaskStatus.PENDING, TaskStatus.RUNNING):
            _, steered = await self._engine.steer(
                call, task.task_id, answer_of(message), message.message_id
            )
            return task, steered.sequence - 1
        if task.status is not TaskStatus.INPUT_REQUIRED:
            raise UnsupportedOperationError(
                f"task {task.task_id} is {convert.STATES[task.status]!r}: it takes a message "
                "only while it waits for input (TASK_STATE_INPUT_REQUIRED)"
            )
        pending = convert.pending_in(await self._tasks.log(task))
        if pending is None:
            raise UnsupportedOperationError(f"task {task.task_id} waits for nothing any more")
        asked = pending.event
        if isinstance(asked, ev.InputRequested):
            await self._engine.provide_input(
                call, task.task_id, asked.request_id, answer_of(message)
            )
        else:
            decision = decision_of(message)
            await self._engine.approve(
                call,
                task.task_id,
                asked.call_id,
                ApprovalDecision(decision.approve, call.principal.id, decision.comment),
            )
        return task, task.last_sequence

    async def _send(
        self, call: CallContext, params: a2a_pb2.SendMessageRequest
    ) -> tuple[Task, int]:
        """The task the message starts or continues, and the log position it starts at."""
        if params.message.task_id:
            return await self._continue(call, params)
        return await self._start(call, params)

    @translated
    async def on_message_send(
        self, params: a2a_pb2.SendMessageRequest, context: ServerCallContext
    ) -> a2a_pb2.Task | a2a_pb2.Message:
        call = call_of(context)
        task, after = await self._send(call, params)
        config = params.configuration
        if not config.return_immediately:
            async for _ in self._follow(task, after):
                pass
        current = await self._engine.find(task.tenant, task.task_id)
        history = config.history_length if config.HasField("history_length") else None
        return await self._view(current, history)

    @translated
    async def on_message_send_stream(
        self, params: a2a_pb2.SendMessageRequest, context: ServerCallContext
    ) -> AsyncGenerator[Any]:
        call = call_of(context)
        task, after = await self._send(call, params)
        current = await self._engine.find(task.tenant, task.task_id)
        yield await self._view(current)
        async for update in self._follow(current, after):
            yield update

    @translated
    async def on_subscribe_to_task(
        self, params: a2a_pb2.SubscribeToTaskRequest, context: ServerCallContext
    ) -> AsyncGenerator[Any]:
        """The task, then its updates: after the `agentd-resume-after` position when given
        (a reconnecting client misses nothing and gets nothing twice), else from now."""
        call = call_of(context)
        note_task(params.id)
        task = await self._engine.find(call.principal.tenant, params.id)
        resume = context.state.get(RESUME)
        if resume is None and task.status.terminal:
            raise UnsupportedOperationError(f"task {task.task_id} has ended: nothing to follow")
        yield await self._view(task)
        after = task.last_sequence if resume is None else int(resume)
        if resume is None and task.status is TaskStatus.INPUT_REQUIRED:
            return  # it waits for the caller: the task above says for what
        async for update in self._follow(task, after):
            yield update

    # -- tasks --------------------------------------------------------------------------

    @translated
    async def on_get_task(
        self, params: a2a_pb2.GetTaskRequest, context: ServerCallContext
    ) -> a2a_pb2.Task | None:
        call = call_of(context)
        note_task(params.id)
        task = await self._engine.find(call.principal.tenant, params.id)
        history = params.history_length if params.HasField("history_length") else None
        return await self._view(task, history)

    @translated
    async def on_list_tasks(
        self, params: a2a_pb2.ListTasksRequest, context: ServerCallContext
    ) -> a2a_pb2.ListTasksResponse:
        call = call_of(context)
        size = pages.page_size(params.page_size if params.HasField("page_size") else 0)
        statuses: frozenset[TaskStatus] = frozenset()
        if params.status != a2a_pb2.TASK_STATE_UNSPECIFIED:
            found = convert.STATUSES.get(params.status)
            if found is None:  # REJECTED, AUTH_REQUIRED: no agentd task is ever in them
                return a2a_pb2.ListTasksResponse(page_size=size)
            statuses = frozenset({found})
        query = TaskQuery(
            tenant=call.principal.tenant,
            owner=call.principal.id,
            statuses=statuses,
            limit=size,
            after=pages.time_cursor(params.page_token),
            agent=params.tenant.split("@", 1)[0],
            conversation_id=params.context_id,
        )
        page = await self._tasks.page(query)
        history = params.history_length if params.HasField("history_length") else 0
        artifacts = params.include_artifacts if params.HasField("include_artifacts") else False
        return a2a_pb2.ListTasksResponse(
            tasks=[await self._view(t, history, artifacts) for t in page.items],
            next_page_token=pages.token(page.next),
            page_size=size,
            total_size=len(page.items),
        )

    @translated
    async def on_cancel_task(
        self, params: a2a_pb2.CancelTaskRequest, context: ServerCallContext
    ) -> a2a_pb2.Task | None:
        call = call_of(context)
        note_task(params.id)
        try:
            task = await self._engine.cancel(
                call.principal.tenant, params.id, f"cancelled by {call.principal.id} (A2A)"
            )
        except TaskAlreadyTerminalError as ended:
            raise TaskNotCancelableError(str(ended)) from None
        return await self._view(task)

    @translated
    async def on_get_extended_agent_card(
        self, params: a2a_pb2.GetExtendedAgentCardRequest, context: ServerCallContext
    ) -> a2a_pb2.AgentCard:
        return await self.cards.card(call_of(context), params.tenant)

    # -- push notifications (server.a2a.push_rpcs, delivered by server.services.push) ----

    @translated
    async def on_create_task_push_notification_config(
        self, params: a2a_pb2.TaskPushNotificationConfig, context: ServerCallContext
    ) -> a2a_pb2.TaskPushNotificationConfig:
        return await self._push.create(call_of(context), params)

    @translated
    async def on_get_task_push_notification_config(
        self, params: a2a_pb2.GetTaskPushNotificationConfigRequest, context: ServerCallContext
    ) -> a2a_pb2.TaskPushNotificationConfig:
        return await self._push.get(call_of(context), params.task_id, params.id)

    @translated
    async def on_list_task_push_notification_configs(
        self,
        params: a2a_pb2.ListTaskPushNotificationConfigsRequest,
        context: ServerCallContext,
    ) -> a2a_pb2.ListTaskPushNotificationConfigsResponse:
        return await self._push.list(call_of(context), params.task_id)

    @translated
    async def on_delete_task_push_notification_config(
        self,
        params: a2a_pb2.DeleteTaskPushNotificationConfigRequest,
        context: ServerCallContext,
    ) -> None:
        await self._push.delete(call_of(context), params.task_id, params.id)
