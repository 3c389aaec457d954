"""Signed deliveries to a trigger (what the HTTP door calls): verified the Standard
Webhooks way (`server.delivery.signing`), then one task started per `(trigger,
webhook-id)`.

In order (`verified`, then `start`: the HTTP door takes the rate-limit token between
them, from the trigger's buckets): the trigger is found by the id in the URL (404); the
headers `webhook-id`, `webhook-timestamp` and `webhook-signature` are read, the
timestamp must be within
AGENTD_TRIGGER_TOLERANCE_SECONDS of now, and one signature must verify over the raw body
with the trigger's secret (or its previous one, until that one's ttl): else 401 and the
refusal counted, nothing started. A delivery kept already answers its task. Then the
trigger's principal is resolved again (`Standing`: 403 with the reason when it may no
longer start tasks), the body parsed (JSON as its value, else UTF-8 text; 415 for
neither) and the task started through the engine with an idempotency key of the trigger
and the webhook id, so the same delivery on two replicas at once starts one task.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from core.errors import (
    AgentdError,
    BodyNotTextError,
    FieldViolation,
    InvalidArgumentError,
    RequestTooLargeError,
    TriggerNotFoundError,
    TriggerSignatureError,
)
from core.identity import CallContext, Principal, new_trace_id
from core.keyring import KeyRing
from records.requests import TaskRequest
from records.tasks import Task
from records.triggers import LABEL, SECRET_PURPOSE, Trigger, delivery_key, secret_binding
from server.delivery.signing import verifies
from server.services.scheduled.standing import Resolve
from stores.triggers.base import TriggerStore

Start = Callable[[TaskRequest, CallContext], Awaitable[Task]]
"""How a task is started (`Engine.start`)."""

MAX_WEBHOOK_ID = 256
MAX_STAMP_DIGITS = 12
"""Unix seconds in ASCII digits, at most this many (past the year 30000); anything else
is refused as a malformed header, before `int()` could raise on it."""


@dataclass(frozen=True, slots=True)
class Delivery:
    """One delivery as it came: the trigger id of its URL, its headers, its raw body."""

    trigger_id: str
    headers: Mapping[str, str]
    """Lower-cased names."""
    body: bytes
    trace_id: str = ""


@dataclass(frozen=True, slots=True)
class Delivered:
    task_id: str
    tenant: str
    principal: Principal


@dataclass(frozen=True, slots=True)
class Verified:
    """A delivery whose signature verified with its trigger's secret."""

    trigger: Trigger
    webhook_id: str
    delivery: Delivery

    @property
    def sender(self) -> Principal:
        """Whose rate limits its deliveries count under: `trigger:<id>`, of the trigger's
        tenant (the trigger's own buckets, and its tenant's)."""
        return Principal(f"trigger:{self.trigger.trigger_id}", self.trigger.tenant)


def _now() -> datetime:
    return datetime.now(UTC)


def body_value(body: bytes, content_type: str) -> Any:
    """The body as the task's context holds it: JSON (by its content type) as its value,
    other bodies as UTF-8 text."""
    kind = content_type.split(";", 1)[0].strip().lower()
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise BodyNotTextError(content_type) from None
    if kind == "application/json" or kind.endswith("+json"):
        try:
            return json.loads(text)
        except (ValueError, RecursionError):
            raise InvalidArgumentError([FieldViolation("body", "is not valid JSON")]) from None
    return text


class TriggerDeliveries:
    def __init__(
        self,
        store: TriggerStore,
        ring: KeyRing,
        start: Start,
        standing: Resolve,
        *,
        tolerance_seconds: int = 300,
        max_body_bytes: int = 262_144,
        now: Callable[[], datetime] = _now,
    ) -> None:
        self._store = store
        self._ring = ring
        self._start = start
        self._standing = standing
        self._tolerance = tolerance_seconds
        self.max_body_bytes = max_body_bytes
        self._now = now

    async def deliver(self, delivery: Delivery) -> Delivered:
        """The task the delivery started (or started before); an AgentdError otherwise."""
        return await self.start(await self.verified(delivery))

    async def verified(self, delivery: Delivery) -> Verified:
        """The delivery's trigger and webhook id once its signature verifies;
        TriggerNotFoundError, or TriggerSignatureError (the refusal counted), otherwise."""
        trigger = await self._store.find(delivery.trigger_id)
        if trigger is None:
            raise TriggerNotFoundError(delivery.trigger_id)
        try:
            webhook_id = self._verified(trigger, delivery)
        except TriggerSignatureError:
            await self._store.refused(trigger.trigger_id)
            raise
        return Verified(trigger, webhook_id, delivery)

    async def start(self, verified: Verified) -> Delivered:
        """The task a verified delivery started (or started before); an AgentdError
        otherwise."""
        trigger, webhook_id, delivery = verified.trigger, verified.webhook_id, verified.delivery
        if len(delivery.body) > self.max_body_bytes:
            raise RequestTooLargeError("body", len(delivery.body), self.max_body_bytes)
        stored = Principal(trigger.principal, trigger.tenant, trigger.roles)
        kept = await self._store.delivery(trigger.trigger_id, webhook_id)
        if kept is not None:
            return Delivered(kept, trigger.tenant, stored)
        try:
            principal = await self._standing(stored)
        except AgentdError:
            await self._store.refused(trigger.trigger_id)
            raise
        value = body_value(delivery.body, delivery.headers.get("content-type", ""))
        request = _request(trigger, webhook_id, value)
        call = CallContext(principal, delivery.trace_id or new_trace_id())
        task = await self._start(request, call)
        task_id = await self._store.delivered(
            trigger.trigger_id, webhook_id, task.task_id, self._now()
        )
        return Delivered(task_id, trigger.tenant, principal)

    def _verified(self, trigger: Trigger, delivery: Delivery) -> str:
        """The delivery's webhook id once its timestamp is in the window and a signature
        verifies; TriggerSignatureError otherwise."""
        headers = delivery.headers
        webhook_id = headers.get("webhook-id", "")
        stamp = headers.get("webhook-timestamp", "")
        header = headers.get("webhook-signature", "")
        if not webhook_id or not stamp or not header:
            raise TriggerSignatureError(
                "send webhook-id, webhook-timestamp and webhook-signature (Standard Webhooks)"
            )
        if len(webhook_id) > MAX_WEBHOOK_ID:
            raise TriggerSignatureError(f"webhook-id is over {MAX_WEBHOOK_ID} characters")
        if not (stamp.isascii() and stamp.isdigit() and len(stamp) <= MAX_STAMP_DIGITS):
            raise TriggerSignatureError("webhook-timestamp must be Unix seconds")
        now = self._now()
        if abs(now.timestamp() - int(stamp)) > self._tolerance:
            raise TriggerSignatureError(
                f"webhook-timestamp is more than {self._tolerance} s from the server's clock"
            )
        for secret in self._secrets(trigger, now):
            if verifies(secret, webhook_id, int(stamp), delivery.body, header):
                return webhook_id
        raise TriggerSignatureError("no signature verifies with the trigger's secret")

    def _secrets(self, trigger: Trigger, now: datetime) -> list[str]:
        bound = secret_binding(trigger.tenant, trigger.trigger_id)
        sealed = [trigger.secret]
        if trigger.previous_secret and trigger.previous_until and now < trigger.previous_until:
            sealed.append(trigger.previous_secret)
        what = "a trigger's signing secret"
        return [self._ring.open(SECRET_PURPOSE, s, bound, what=what).decode() for s in sealed]


def _request(trigger: Trigger, webhook_id: str, body: Any) -> TaskRequest:
    """What the delivery starts: the trigger's task, the body under `trigger.body` (the
    timestamp is left out: a re-sent delivery is signed anew, and must match its first)."""
    given = {"id": trigger.trigger_id, "webhook_id": webhook_id, "body": body}
    return TaskRequest(
        goal=trigger.goal,
        context={**trigger.context, "trigger": given},
        token_budget=trigger.token_budget,
        spend_limit=trigger.spend_limit,
        timeout_seconds=trigger.timeout_seconds,
        labels={**trigger.labels, LABEL: trigger.trigger_id},
        agent=trigger.agent,
        idempotency_key=delivery_key(trigger.trigger_id, webhook_id),
    )
