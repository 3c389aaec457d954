"""Webhooks in-process: signatures verified by the `standardwebhooks` package (a wrong secret
fails), secrets' format, which status changes and waits' steps are which events, the
filters, the cache of a tenant's webhooks, and what the service refuses."""

from __future__ import annotations

import ipaddress
import json
from datetime import UTC, datetime, timedelta

import pytest
import standardwebhooks

from core.errors import (
    InvalidArgumentError,
    KeyRequiredError,
    RoleRequiredError,
    WebhookNotFoundError,
)
from core.identity import Principal
from core.keyring import KeyRing, new_key
from core.roles import DEFAULT_ROLES
from records.inbox.steps import ActionStep, ActionStepKind
from records.tasks import StopReason, Task, TaskStatus
from records.waits import Wait, WaitKind
from records.webhooks import OutboxEvent, Stream, Webhook
from server.delivery.signing import new_secret, secret_problem, signed_headers
from server.services.webhook_delivery import body_of
from server.services.webhook_outbox import WebhookOutboxWriter
from server.services.webhooks import WebhookService
from stores.webhooks.memory import InMemoryWebhooks

NOW = datetime(2026, 12, 9, 9, 0, tzinfo=UTC)
ADMIN = Principal("alice", "acme", ("admin",))
LOCAL = (ipaddress.ip_network("127.0.0.0/8"),)


def _signed(secret: str) -> tuple[bytes, dict[str, str]]:
    event = OutboxEvent("evt_1", "acme", "task_1", "task.started", NOW, {"task_id": "task_1"}, 7)
    body = body_of(event)
    stamp = int(datetime.now(UTC).timestamp())
    return body, dict(signed_headers(secret, event.event_id, stamp, body))


def test_signatures_verify_with_standard_webhooks_and_not_with_another_secret() -> None:
    secret = new_secret()
    body, headers = _signed(secret)
    verified = standardwebhooks.Webhook(secret).verify(body, headers)
    assert verified == {
        "type": "task.started",
        "timestamp": "2026-12-09T09:00:00Z",
        "data": {"task_id": "task_1", "sequence": 7},
    }
    assert headers["webhook-id"] == "evt_1"
    with pytest.raises(standardwebhooks.WebhookVerificationError):
        standardwebhooks.Webhook(new_secret()).verify(body, headers)
    with pytest.raises(standardwebhooks.WebhookVerificationError):  # a body altered
        standardwebhooks.Webhook(secret).verify(body.replace(b"7", b"8"), headers)


@pytest.mark.parametrize(
    ("secret", "problem"),
    [
        ("abc", "must begin with whsec_"),
        ("whsec_!!!", "must be whsec_ and base64"),
        ("whsec_" + "QUFB" * 4, "must hold 24 to 64 bytes (it holds 12)"),
        ("whsec_" + "QUFB" * 30, "must hold 24 to 64 bytes (it holds 90)"),
    ],
)
def test_a_secret_is_whsec_and_24_to_64_bytes(secret: str, problem: str) -> None:
    assert secret_problem(secret) == problem
    assert secret_problem(new_secret()) is None


def _task(status: TaskStatus = TaskStatus.RUNNING, **fields: object) -> Task:
    task = Task("task_1", "acme", "alice", "6*7?", labels={"team": "a", "env": "prod"})
    task.status = status
    task.last_sequence = 4
    for name, value in fields.items():
        setattr(task, name, value)
    return task


async def _writer(*webhooks: Webhook) -> tuple[WebhookOutboxWriter, InMemoryWebhooks]:
    store = InMemoryWebhooks()
    for webhook in webhooks:
        await store.create(webhook)

    async def find(tenant: str, task_id: str) -> Task | None:
        return _task() if (tenant, task_id) == ("acme", "task_1") else None

    return WebhookOutboxWriter(store, store, find), store


async def _sent(store: InMemoryWebhooks, webhook_id: str = "wh_all") -> list[OutboxEvent]:
    return [d.event for d in await store.pending(Stream("acme", webhook_id, "task_1"), 100)]


EVERYTHING = Webhook("wh_all", "acme", "http://127.0.0.1:9/", created_at=NOW)


async def test_status_changes_are_task_events_once() -> None:
    writer, store = await _writer(EVERYTHING)
    changes = [
        (TaskStatus.PENDING, None, None),
        (TaskStatus.RUNNING, TaskStatus.PENDING, "task.started"),
        (TaskStatus.INPUT_REQUIRED, TaskStatus.RUNNING, "task.waiting"),
        (TaskStatus.RUNNING, TaskStatus.INPUT_REQUIRED, None),  # resumed: no event
        (TaskStatus.FAILED, TaskStatus.RUNNING, "task.failed"),
    ]
    for sequence, (status, previous, _) in enumerate(changes):
        task = _task(status, last_sequence=sequence * 3, stop_reason=StopReason.ERROR)
        await writer.task_status(task, status, previous)
        await writer.task_status(task, status, previous)  # repeated after a takeover
    sent = await _sent(store)
    assert [e.event_type for e in sent] == [t for _, _, t in changes if t]
    ended = sent[-1].data
    assert ended["stop_reason"] == "error"
    assert ended["labels"] == {"team": "a", "env": "prod"}
    assert (ended["task_id"], ended["root_task_id"], ended["status"]) == (
        "task_1",
        "task_1",
        "failed",
    )
    for status in (TaskStatus.COMPLETED, TaskStatus.CANCELLED):
        await writer.task_status(_task(status), status, TaskStatus.RUNNING)
    assert [e.event_type for e in await _sent(store)][-2:] == ["task.completed", "task.cancelled"]


def _step(
    kind: ActionStepKind, deadline: int = 60, roles: tuple[str, ...] = ("ops",)
) -> ActionStep:
    wait = Wait(
        "acme",
        "task_1",
        "call_1",
        WaitKind.APPROVAL,
        NOW,
        agent="researcher@2",
        roles=roles,
        tool_name="http_request",
        deadline_at=NOW + timedelta(seconds=deadline),
    )
    return ActionStep(kind, wait, NOW, outcome="denied" if kind is ActionStepKind.TIMED_OUT else "")


async def test_waits_steps_are_inbox_events_and_an_answer_is_none() -> None:
    writer, store = await _writer(EVERYTHING)
    await writer.action(_step(ActionStepKind.OPENED))
    await writer.action(_step(ActionStepKind.OPENED))  # the same step again: once
    await writer.action(_step(ActionStepKind.REMINDED, deadline=120))
    await writer.action(_step(ActionStepKind.ESCALATED, deadline=180, roles=("boss",)))
    await writer.action(_step(ActionStepKind.ANSWERED, deadline=180, roles=("boss",)))
    await writer.action(_step(ActionStepKind.TIMED_OUT, deadline=180, roles=("boss",)))
    sent = await _sent(store)
    assert [e.event_type for e in sent] == [
        "inbox.new",
        "inbox.reminded",
        "inbox.escalated",
        "inbox.expired",
    ]
    escalated, expired = sent[2].data, sent[3].data
    assert escalated["roles"] == ["boss"]
    assert escalated["deadline"] == (NOW + timedelta(seconds=180)).isoformat()
    assert (expired["kind"], expired["request_id"], expired["tool"]) == (
        "approval",
        "call_1",
        "http_request",
    )
    assert (expired["outcome"], expired["agent"], expired["status"]) == (
        "denied",
        "researcher@2",
        "running",
    )
    assert expired["labels"] == {"team": "a", "env": "prod"}


async def test_filters_choose_the_webhooks_an_event_goes_to() -> None:
    failures = Webhook(
        "wh_fail", "acme", "http://127.0.0.1:9/", event_types=("task.failed",), created_at=NOW
    )
    researcher = Webhook("wh_res", "acme", "http://127.0.0.1:9/", agents=("researcher",))
    prod = Webhook("wh_prod", "acme", "http://127.0.0.1:9/", labels={"env": "prod"})
    staging = Webhook("wh_stage", "acme", "http://127.0.0.1:9/", labels={"env": "staging"})
    globex = Webhook("wh_globex", "globex", "http://127.0.0.1:9/")
    writer, store = await _writer(failures, researcher, prod, staging, globex)
    await writer.task_status(_task(), TaskStatus.RUNNING, TaskStatus.PENDING)
    await writer.action(_step(ActionStepKind.OPENED))  # a wait of researcher@2
    assert [e.event_type for e in await _sent(store, "wh_fail")] == []
    assert [e.event_type for e in await _sent(store, "wh_res")] == ["inbox.new"]
    assert [e.event_type for e in await _sent(store, "wh_prod")] == ["task.started", "inbox.new"]
    assert await _sent(store, "wh_stage") == []
    assert await _sent(store, "wh_globex") == []
    assert researcher.matches("task.failed", "researcher@7", {})
    assert not researcher.matches("task.failed", "", {})  # the default agent


async def test_a_tenant_without_webhooks_writes_nothing_and_the_cache_follows_changes() -> None:
    clock = [0.0]
    store = InMemoryWebhooks()

    async def find(tenant: str, task_id: str) -> Task | None:
        return None

    writer = WebhookOutboxWriter(store, store, find, 5.0, clock=lambda: clock[0])
    ring = KeyRing.parse([new_key()])
    service = WebhookService(store, ring, DEFAULT_ROLES, LOCAL, writer)
    await writer.task_status(_task(), TaskStatus.RUNNING, TaskStatus.PENDING)
    assert (await store.sweep(NOW, 60)).pending == 0  # nothing was written
    created, secret = await service.create(
        ADMIN, Webhook("", "", "http://127.0.0.1:9/in"), ""
    )  # on this replica: at once
    assert secret_problem(secret) is None
    assert secret not in created.secret  # kept sealed
    await writer.task_status(_task(last_sequence=9), TaskStatus.RUNNING, TaskStatus.PENDING)
    assert len(await _sent(store, created.webhook_id)) == 1
    other = Webhook("wh_elsewhere", "acme", "http://127.0.0.1:9/", created_at=NOW)
    await store.create(other)  # made on another replica: seen once the copy is old
    await writer.task_status(_task(last_sequence=10), TaskStatus.RUNNING, TaskStatus.PENDING)
    assert await _sent(store, "wh_elsewhere") == []
    clock[0] = 6.0
    await writer.task_status(_task(last_sequence=11), TaskStatus.RUNNING, TaskStatus.PENDING)
    assert len(await _sent(store, "wh_elsewhere")) == 1


async def test_the_service_checks_what_it_keeps() -> None:
    store = InMemoryWebhooks()
    service = WebhookService(store, KeyRing.parse([new_key()]), DEFAULT_ROLES, LOCAL)
    bad = Webhook(
        "",
        "",
        "ftp://127.0.0.1/in",
        event_types=("task.started", "task.exploded"),
        agents=("Researcher@2",),
        labels={"Bad Key": "x"},
    )
    with pytest.raises(InvalidArgumentError) as raised:
        await service.create(ADMIN, bad, "not-a-secret")
    fields = {v.field for v in raised.value.field_violations}
    assert fields == {
        "webhook.url",
        "webhook.event_types[1]",
        "webhook.agents[0]",
        "webhook.labels[Bad Key]",
    }
    good = Webhook("", "", "http://127.0.0.1:9/in")
    with pytest.raises(InvalidArgumentError) as raised:
        await service.create(ADMIN, good, "not-a-secret")
    assert [v.field for v in raised.value.field_violations] == ["secret"]
    with pytest.raises(RoleRequiredError):
        await service.create(Principal("bob", "acme", ("approver",)), good)
    keyless = WebhookService(store, KeyRing(), DEFAULT_ROLES, LOCAL)
    with pytest.raises(KeyRequiredError, match="a webhook's signing secret"):
        await keyless.create(ADMIN, good)
    mine, _ = await service.create(ADMIN, good, new_secret())
    theirs = Principal("eve", "globex", ("admin",))
    with pytest.raises(WebhookNotFoundError):
        await service.get(theirs, mine.webhook_id)
    assert json.loads(body_of(OutboxEvent("e", "acme", "t", "task.started", NOW, {}, 3)))[
        "data"
    ] == {"sequence": 3}
