"""The webhooks' outbox writer: told of task status changes and of the steps of waits for a
person (`agent.notices.Notices`), it writes each event a webhook of the task's tenant
wants to the outbox (`stores.webhooks`), once, before the change goes on.

Task events: task.started (RUNNING from PENDING), task.waiting (INPUT_REQUIRED),
task.completed, task.failed, task.cancelled. Inbox events: inbox.new (a wait opened),
inbox.reminded, inbox.escalated, inbox.expired (its deadline passed); an answer is no
event (the task's next status says it). Event ids are made from what the change is (the
task, its status and the last event before it; the wait, its step and where it stands
after it), so a change repeated after a takeover writes no second event.

Which webhooks want an event is decided here, from the tenant's webhooks read through a
cache (read again once `refresh_seconds` old; a change made on this replica drops it at
once): a tenant without webhooks costs no write at all.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from core.metrics import WEBHOOK_EVENTS, labelled
from records.inbox.steps import ActionStep, ActionStepKind
from records.tasks import Task, TaskStatus
from records.webhooks import EventType, OutboxEvent, Webhook, event_id_of
from stores.webhooks.base import WebhookOutbox, WebhookStore

FindTask = Callable[[str, str], Awaitable[Task | None]]
"""The task of (tenant, task id), None when it is gone."""

STEP_TYPES = {
    ActionStepKind.OPENED: EventType.INBOX_NEW,
    ActionStepKind.REMINDED: EventType.INBOX_REMINDED,
    ActionStepKind.ESCALATED: EventType.INBOX_ESCALATED,
    ActionStepKind.TIMED_OUT: EventType.INBOX_EXPIRED,
}
ENDS = {
    TaskStatus.COMPLETED: EventType.TASK_COMPLETED,
    TaskStatus.FAILED: EventType.TASK_FAILED,
    TaskStatus.CANCELLED: EventType.TASK_CANCELLED,
}


def task_event_type(status: TaskStatus, previous: TaskStatus | None) -> EventType | None:
    """The event a status change is (None: none)."""
    if status is TaskStatus.RUNNING:
        return EventType.TASK_STARTED if previous in (None, TaskStatus.PENDING) else None
    if status is TaskStatus.INPUT_REQUIRED:
        return EventType.TASK_WAITING if previous is not status else None
    return ENDS.get(status)


def _agent(task: Task) -> str:
    return task.agent.reference if task.agent is not None else ""


def task_data(task: Task, status: TaskStatus, previous: TaskStatus | None) -> dict[str, Any]:
    """The body's `data` of a task event (its `sequence` is added when it is sent)."""
    data: dict[str, Any] = {
        "task_id": task.task_id,
        "root_task_id": task.root,
        "parent_task_id": task.parent_task_id,
        "agent": _agent(task),
        "status": status.value,
        "previous_status": previous.value if previous is not None else "",
        "labels": dict(task.labels),
    }
    if status.terminal:
        data["stop_reason"] = task.stop_reason.value if task.stop_reason else ""
        data["partial"] = task.partial
        if task.failure is not None:
            data["error"] = {"reason": task.failure.reason, "message": task.failure.message}
    return data


def inbox_data(step: ActionStep, task: Task | None) -> dict[str, Any]:
    """The body's `data` of an inbox event."""
    wait = step.wait
    return {
        "task_id": wait.task_id,
        "root_task_id": wait.root_task_id or wait.task_id,
        "agent": wait.agent,
        "status": task.status.value if task is not None else "",
        "labels": dict(task.labels) if task is not None else {},
        "kind": wait.kind.value,
        "request_id": wait.slot,
        "tool": wait.tool_name,
        "roles": list(wait.roles),
        "deadline": wait.deadline_at.isoformat() if wait.deadline_at else None,
        "outcome": step.outcome,
        "actor": step.actor,
    }


@dataclass(slots=True)
class _Cached:
    fresh_until: float
    webhooks: list[Webhook]


class WebhookOutboxWriter:
    """A `Notices` that writes the webhooks' events (see the module docstring)."""

    def __init__(
        self,
        store: WebhookStore,
        outbox: WebhookOutbox,
        find_task: FindTask,
        refresh_seconds: float = 5.0,
        *,
        clock: Callable[[], float] = time.monotonic,
        wrote: Callable[[], None] | None = None,
    ) -> None:
        self._store = store
        self._outbox = outbox
        self._find_task = find_task
        self._refresh = refresh_seconds
        self._clock = clock
        self.wrote = wrote
        """Told after each write (the local deliverer claims at once)."""
        self._tenants: dict[str, _Cached] = {}
        self._reads: dict[str, asyncio.Lock] = {}

    def changed(self, tenant: str) -> None:
        """The tenant's webhooks changed here: read them again at the next event."""
        self._tenants.pop(tenant, None)

    async def webhooks_of(self, tenant: str) -> list[Webhook]:
        """The tenant's webhooks, through the cache."""
        cached = self._tenants.get(tenant)
        if cached is not None and self._clock() < cached.fresh_until:
            return cached.webhooks
        async with self._reads.setdefault(tenant, asyncio.Lock()):
            cached = self._tenants.get(tenant)
            if cached is None or self._clock() >= cached.fresh_until:
                fresh_until = self._clock() + self._refresh
                cached = _Cached(fresh_until, await self._store.of_tenant(tenant))
                self._tenants[tenant] = cached
            return cached.webhooks

    async def task_status(
        self, task: Task, status: TaskStatus, previous: TaskStatus | None
    ) -> None:
        event_type = task_event_type(status, previous)
        if event_type is None:
            return
        targets = await self._targets(task.tenant, event_type, _agent(task), task.labels)
        if not targets:
            return
        event_id = event_id_of(task.task_id, status.value, str(task.last_sequence))
        data = task_data(task, status, previous)
        await self._write(task.tenant, task.task_id, event_id, event_type, data, targets)

    async def action(self, step: ActionStep) -> None:
        event_type = STEP_TYPES.get(step.kind)
        wait = step.wait
        if event_type is None or not wait.kind.for_person:
            return
        webhooks = await self.webhooks_of(wait.tenant)
        # Could one want it, whatever the task's labels (a webhook's own always match)?
        # If none, the task is not even looked up.
        if not any(w.matches(event_type.value, wait.agent, w.labels) for w in webhooks):
            return
        task = await self._find_task(wait.tenant, wait.task_id)
        labels = task.labels if task is not None else {}
        targets = await self._targets(wait.tenant, event_type, wait.agent, labels)
        if not targets:
            return
        event_id = event_id_of(
            wait.task_id,
            wait.slot,
            step.kind.value,
            wait.created_at.isoformat(),
            wait.deadline_at.isoformat() if wait.deadline_at else "",
            ",".join(wait.roles),
        )
        data = inbox_data(step, task)
        await self._write(wait.tenant, wait.task_id, event_id, event_type, data, targets)

    async def _targets(
        self, tenant: str, event_type: EventType, agent: str, labels: Mapping[str, str]
    ) -> list[str]:
        webhooks = await self.webhooks_of(tenant)
        return [w.webhook_id for w in webhooks if w.matches(event_type.value, agent, labels)]

    async def _write(
        self,
        tenant: str,
        task_id: str,
        event_id: str,
        event_type: EventType,
        data: dict[str, Any],
        targets: Sequence[str],
    ) -> None:
        event = OutboxEvent(event_id, tenant, task_id, event_type.value, datetime.now(UTC), data)
        await self._outbox.write(event, targets)
        labelled(WEBHOOK_EVENTS, event_type.value).inc()
        if self.wrote is not None:
            self.wrote()
