"""SteerTask: a user message added to a task that runs, waits or is queued.

The message goes to the task's log first (a `task_steered` event), on whichever replica
receives it: once SteerTask returns, the steer is kept. Then the run is nudged, here
directly and on the other replicas through the steer bus (`stores.steers`); the run takes
the steer at its next safe point (`agent.running.steering`) and finds it in the log
without the nudge too. A parked task is not woken: a person's approval or answer, or its
children, still decide when it goes on, and it takes the steer then.

A retry with the same idempotency key and the same message gets the first steer back.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import replace

import structlog

from agent.conversations.engine_hooks import TaskMemory
from agent.limits import MAX_TASK_CHARS
from core.errors import (
    ConversationBusyError,
    FieldViolation,
    IdempotencyConflictError,
    InvalidArgumentError,
    TaskAlreadyTerminalError,
)
from core.identity import CallContext
from core.roles import Action, RoleTable
from records import events as ev
from records.conversations.model import BusyPolicy
from records.requests import TaskRequest
from records.tasks import Task
from stores.idempotency.base import IdempotencyStore, scoped_key
from stores.steers.base import SteerBus
from stores.tasks.base import TaskStore, logged

log = structlog.get_logger(__name__)

MAX_STEER_CHARS = MAX_TASK_CHARS
"""A steer's message at most: as a task's text."""
STEER_ID_PREFIX = "steer_"

Nudge = Callable[[str], bool]
"""Nudges the run of a task in this process; whether it runs here."""
Find = Callable[[str, str], Awaitable[Task]]
"""A task of a tenant, live or from the history (TaskNotFoundError when neither has it)."""
Start = Callable[[TaskRequest, CallContext], Awaitable[Task]]
"""Starts a task (`Engine.start`)."""
STEER_ATTEMPTS = 3
"""Tries at steering a busy conversation's task or starting one in an idle conversation,
while its tasks end and begin between the two."""


def new_steer_id() -> str:
    return STEER_ID_PREFIX + secrets.token_hex(12)


def checked_message(message: str) -> str:
    """`message`, or InvalidArgumentError saying what is wrong with it."""
    if not message.strip() or len(message) > MAX_STEER_CHARS:
        problem = f"must be 1 to {MAX_STEER_CHARS} characters, not only blanks"
        raise InvalidArgumentError([FieldViolation("message", problem)])
    if "\x00" in message:
        raise InvalidArgumentError([FieldViolation("message", "must not hold NUL characters")])
    return message


class Steers:
    """Adds steers to tasks' logs and nudges their runs."""

    def __init__(
        self,
        store: TaskStore,
        find: Find,
        idempotency: IdempotencyStore,
        bus: SteerBus,
        roles: RoleTable,
        nudge_here: Nudge,
        key_ttl_seconds: float,
    ) -> None:
        self._store = store
        self._find_task = find
        self._idempotency = idempotency
        self._bus = bus
        self._roles = roles
        self._nudge_here = nudge_here
        self._key_ttl = key_ttl_seconds

    async def steer(
        self, call: CallContext, task_id: str, message: str, idempotency_key: str = ""
    ) -> tuple[Task, ev.TaskEvent]:
        """Add `message` to the task; the task as it stands and the steer's event. The
        task's owner may steer it, or a principal with a role that answers others' tasks;
        TaskAlreadyTerminalError (naming its state) once it has ended."""
        checked_message(message)
        tenant = call.principal.tenant
        task = await self._find_task(tenant, task_id)
        if call.principal.id != task.owner:
            self._roles.require(call.principal.roles, Action.ANSWER_ANOTHERS_TASK)
        steer_id = new_steer_id()
        key = ""
        if idempotency_key:
            key = scoped_key("steer", tenant, call.principal.id, idempotency_key)
            fingerprint = hashlib.sha256(f"{task_id}\x1f{message}".encode()).hexdigest()
            try:
                earlier = await self._idempotency.reserve(key, fingerprint, steer_id, self._key_ttl)
            except IdempotencyConflictError:
                raise IdempotencyConflictError(idempotency_key) from None
            if earlier is not None:
                found = await self._find(tenant, task_id, earlier)
                if found is not None:
                    return await self._store.get(tenant, task_id), found
                steer_id = earlier  # the first try did not write it: this one does
        try:  # a steer not written leaves its key free for a retry
            event = await self._written(task, ev.TaskSteered(steer_id, call.principal.id, message))
        except BaseException:
            if key:
                await self._idempotency.release(key)
            raise
        log.info("task steered", task_id=task_id, steer_id=steer_id, trace_id=call.trace_id)
        await self.nudge(task_id)
        return await self._store.get(tenant, task_id), event

    async def _written(self, task: Task, payload: ev.TaskSteered) -> ev.TaskEvent:
        """The steer appended to the task's log; TaskAlreadyTerminalError, naming the state
        the task ended in, when it has ended (before or while it was written)."""
        if task.status.terminal:
            raise TaskAlreadyTerminalError(task.task_id, task.status.value)
        try:
            return await self._store.append_event(task.task_id, task.trace_id, payload)
        except TaskAlreadyTerminalError:
            ended = await self._store.get(task.tenant, task.task_id)
            raise TaskAlreadyTerminalError(task.task_id, ended.status.value) from None

    async def into_conversation(
        self, request: TaskRequest, call: CallContext, memory: TaskMemory, start: Start
    ) -> tuple[Task, int]:
        """A request under the STEER busy policy: the task running (or waiting) in its
        conversation steered with the request's text, else a new task started; the task,
        and the log position to follow it from (just before the steer; 0 for a new task)."""
        if request.parts:  # a steer carries text: the parts would be lost
            problem = "a steer carries text only: send files with another busy policy"
            raise InvalidArgumentError([FieldViolation("parts", problem)])
        conversation_id = request.conversation_id
        await memory.conversations.get(call.principal, conversation_id)  # the caller's?
        gate = memory.conversations.gate
        for _ in range(STEER_ATTEMPTS):
            busy = await gate.busy(call.principal.tenant, conversation_id)
            if busy:
                try:
                    task, event = await self.steer(
                        call, busy, request.goal, request.idempotency_key
                    )
                except TaskAlreadyTerminalError:
                    continue  # it ended meanwhile: the next may be free
                return task, event.sequence - 1
            try:
                return await start(replace(request, busy_policy=BusyPolicy.REJECT), call), 0
            except ConversationBusyError:
                continue  # a task took it meanwhile: steer that one
        raise ConversationBusyError(
            conversation_id,
            "",
            f"conversation {conversation_id!r} kept changing hands; send the steer again",
        )

    async def nudge(self, task_id: str) -> None:
        """Nudge the task's run: here, or on the replica that runs it (best effort: the run
        finds the steer in the log without it)."""
        if self._nudge_here(task_id):
            return
        try:
            await self._bus.publish(task_id)
        except Exception:
            log.warning("could not publish a steer", task_id=task_id, exc_info=True)

    async def _find(self, tenant: str, task_id: str, steer_id: str) -> ev.TaskEvent | None:
        """The `task_steered` event of `steer_id` in the task's log, if it is there."""
        stored = await self._store.get(tenant, task_id)
        for event in await logged(self._store, tenant, task_id, 0, stored.last_sequence):
            payload = event.payload
            if isinstance(payload, ev.TaskSteered) and payload.steer_id == steer_id:
                return event
        return None
