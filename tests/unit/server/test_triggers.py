"""Inbound triggers in-process, on a controlled clock: the shared Standard Webhooks
primitive verifies what `standardwebhooks` signs (several signatures in one header,
compared in constant time); the timestamp window holds both ways; a rotated secret's
predecessor verifies until its ttl and not after; an odd webhook-timestamp (a non-ASCII
digit, thousands of digits) is a 401 counted as refused; bodies are JSON, UTF-8 text, or 415;
management needs an operator's role, refuses bad drafts naming the field, and needs a
key to seal the secret; the standing of a stored principal follows its keys."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import standardwebhooks

from agentd.v1 import schedules_pb2
from core.errors import (
    BodyNotTextError,
    InvalidArgumentError,
    KeyRequiredError,
    PrincipalStandingError,
    RequestTooLargeError,
    RoleRequiredError,
    TriggerSignatureError,
)
from core.identity import CallContext, Principal
from core.keyring import KeyRing, new_key
from core.roles import DEFAULT_ROLES
from records.keys import ApiKey
from records.keys import new_key as new_api_key
from records.requests import TaskRequest
from records.tasks import Task
from records.triggers import Trigger
from server.convert.automation.triggers import trigger_from_proto, trigger_to_proto
from server.delivery.signing import new_secret, signature, verifies
from server.http.errors import http_status
from server.services.scheduled.standing import Standing, as_stored
from server.services.triggers.deliveries import Delivery, TriggerDeliveries, body_value
from server.services.triggers.manage import TriggerService
from stores.api_keys.memory import InMemoryKeyStore
from stores.triggers.memory import InMemoryTriggerStore

T0 = datetime(2026, 12, 8, 1, 0, tzinfo=UTC)
ALICE = Principal("alice", "acme", ("operator",))


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


class Starts:
    """Engine.start's double: one task per idempotency key, as the engine keeps them."""

    def __init__(self) -> None:
        self.by_key: dict[str, Task] = {}
        self.requests: list[TaskRequest] = []

    async def __call__(self, request: TaskRequest, call: CallContext) -> Task:
        self.requests.append(request)
        if request.idempotency_key not in self.by_key:
            task_id = f"task_{len(self.by_key)}"
            task = Task(task_id, call.principal.tenant, call.principal.id, request.goal)
            self.by_key[request.idempotency_key] = task
        return self.by_key[request.idempotency_key]


def delivery(
    trigger_id: str, secret: str, webhook_id: str, at: datetime, body: bytes = b"{}"
) -> Delivery:
    stamp = int(at.timestamp())
    headers = {
        "content-type": "application/json",
        "webhook-id": webhook_id,
        "webhook-timestamp": str(stamp),
        "webhook-signature": standardwebhooks.Webhook(secret).sign(webhook_id, at, body),
    }
    return Delivery(trigger_id, headers, body)


def parts() -> tuple[TriggerService, TriggerDeliveries, Clock, Starts]:
    store, ring, clock, starts = (
        InMemoryTriggerStore(),
        KeyRing.parse([new_key()]),
        Clock(),
        Starts(),
    )
    service = TriggerService(store, ring, DEFAULT_ROLES, now=clock)
    deliveries = TriggerDeliveries(store, ring, starts, as_stored, tolerance_seconds=300, now=clock)
    return service, deliveries, clock, starts


def test_the_primitive_verifies_standard_webhooks_signatures() -> None:
    secret, other = new_secret(), new_secret()
    body = b'{"a": 1}'
    theirs = standardwebhooks.Webhook(secret).sign("msg_1", T0, body)
    assert theirs == signature(secret, "msg_1", int(T0.timestamp()), body)
    stamp = int(T0.timestamp())
    assert verifies(secret, "msg_1", stamp, body, theirs)
    assert verifies(secret, "msg_1", stamp, body, f"v1,bm9wZQ== {theirs}")  # one of several
    assert not verifies(other, "msg_1", stamp, body, theirs)
    assert not verifies(secret, "msg_2", stamp, body, theirs)
    assert not verifies(secret, "msg_1", stamp + 1, body, theirs)
    assert not verifies(secret, "msg_1", stamp, body + b" ", theirs)
    assert not verifies(secret, "msg_1", stamp, body, theirs.replace("v1,", "v2,"))


async def test_the_window_holds_both_ways() -> None:
    service, deliveries, _clock, starts = parts()
    trigger, secret = await service.create(ALICE, Trigger("", "", "", goal="go"))
    for skew in (-301, 301):
        with pytest.raises(TriggerSignatureError, match="300 s"):
            await deliveries.deliver(
                delivery(trigger.trigger_id, secret, f"m{skew}", T0 + timedelta(seconds=skew))
            )
    done = await deliveries.deliver(
        delivery(trigger.trigger_id, secret, "m", T0 - timedelta(seconds=299))
    )
    assert done.task_id == "task_0"
    assert len(starts.by_key) == 1
    assert (await service.get(ALICE, trigger.trigger_id)).refused == 2


async def test_a_rotated_secret_verifies_until_its_ttl_and_not_after() -> None:
    service, deliveries, clock, starts = parts()
    trigger, old = await service.create(ALICE, Trigger("", "", "", goal="go"))
    rotated, new = await service.rotate(ALICE, trigger.trigger_id, ttl_seconds=600)
    assert new != old
    assert rotated.secret != trigger.secret
    clock.now = T0 + timedelta(seconds=599)
    await deliveries.deliver(delivery(trigger.trigger_id, old, "a", clock.now))
    await deliveries.deliver(delivery(trigger.trigger_id, new, "b", clock.now))
    clock.now = T0 + timedelta(seconds=601)
    with pytest.raises(TriggerSignatureError):
        await deliveries.deliver(delivery(trigger.trigger_id, old, "c", clock.now))
    await deliveries.deliver(delivery(trigger.trigger_id, new, "d", clock.now))
    assert len(starts.by_key) == 3


def test_bodies_are_json_text_or_refused() -> None:
    assert body_value(b'{"a": [1]}', "application/json; charset=utf-8") == {"a": [1]}
    assert body_value(b"7", "application/cloudevents+json") == 7
    assert body_value("héllo".encode(), "text/plain") == "héllo"
    with pytest.raises(InvalidArgumentError, match="body"):
        body_value(b"{nope", "application/json")
    with pytest.raises(BodyNotTextError) as caught:
        body_value(b"\xff\xfe", "application/octet-stream")
    assert http_status(caught.value) == 415


async def test_management_needs_the_role_a_key_and_a_sound_draft() -> None:
    service, _, _, _ = parts()
    with pytest.raises(RoleRequiredError):
        await service.create(Principal("bob", "acme", ()), Trigger("", "", "", goal="go"))
    with pytest.raises(InvalidArgumentError) as bad:
        await service.create(ALICE, Trigger("", "", "", goal="", context={"trigger": 1}))
    fields = {v.field for v in bad.value.violations}
    assert fields == {"trigger.task.goal", "trigger.task.context"}
    with pytest.raises(InvalidArgumentError, match="secret"):
        await service.create(ALICE, Trigger("", "", "", goal="go"), secret="plain")
    keyless = TriggerService(InMemoryTriggerStore(), KeyRing(), DEFAULT_ROLES)
    with pytest.raises(KeyRequiredError):
        await keyless.create(ALICE, Trigger("", "", "", goal="go"))


async def test_standing_follows_the_principals_keys() -> None:
    keys = InMemoryKeyStore()
    standing = Standing(keys)
    assert await standing(ALICE) == ALICE  # never keyed (a gateway vouched): as stored
    key, _ = new_api_key("acme", "alice", ("admin",))
    await keys.add(key)
    assert (await standing(ALICE)).roles == ("admin",)
    await keys.revoke(key.key_id)
    with pytest.raises(PrincipalStandingError, match="revoked"):
        await standing(ALICE)


class NoListing(InMemoryKeyStore):
    """A key store that refuses to list every key: standing must ask for one principal's."""

    async def list(self) -> list[ApiKey]:
        raise AssertionError("every key of every tenant listed")


async def test_standing_reads_only_the_principals_own_keys() -> None:
    keys = NoListing()
    key, _ = new_api_key("acme", "alice", ("admin",))
    await keys.add(key)
    await keys.add(new_api_key("globex", "alice", ("operator",))[0])
    assert (await Standing(keys)(ALICE)).roles == ("admin",)


async def test_a_body_over_the_triggers_limit_is_413_and_starts_nothing() -> None:
    store, ring, clock, starts = (
        InMemoryTriggerStore(),
        KeyRing.parse([new_key()]),
        Clock(),
        Starts(),
    )
    service = TriggerService(store, ring, DEFAULT_ROLES, now=clock)
    deliveries = TriggerDeliveries(store, ring, starts, as_stored, max_body_bytes=8, now=clock)
    trigger, secret = await service.create(ALICE, Trigger("", "", "", goal="go"))
    with pytest.raises(RequestTooLargeError) as caught:
        await deliveries.deliver(delivery(trigger.trigger_id, secret, "m", T0, b'{"a": 123}'))
    assert http_status(caught.value) == 413
    await deliveries.deliver(delivery(trigger.trigger_id, secret, "n", T0, b'{"a": 1}'))
    assert len(starts.by_key) == 1


async def test_a_spend_limit_is_kept_and_each_delivery_s_task_is_started_with_it() -> None:
    service, deliveries, _, starts = parts()
    draft = Trigger("", "", "", goal="go", spend_limit=300_000)
    trigger, secret = await service.create(ALICE, draft)
    assert trigger.spend_limit == 300_000
    await deliveries.deliver(delivery(trigger.trigger_id, secret, "a", T0))
    assert [r.spend_limit for r in starts.requests] == [300_000]


def test_a_spend_limit_crosses_the_wire_both_ways() -> None:
    task = schedules_pb2.ScheduledTask(goal="go", spend_limit=300_000)
    trigger = trigger_from_proto(schedules_pb2.Trigger(task=task))
    assert trigger.spend_limit == 300_000
    assert trigger_to_proto(trigger).task.spend_limit == 300_000


@pytest.mark.parametrize("stamp", ["\xb2", "1" * 4301, "1" * 13])
async def test_an_odd_timestamp_is_refused_401_and_counted(stamp: str) -> None:
    service, deliveries, _clock, starts = parts()
    trigger, secret = await service.create(ALICE, Trigger("", "", "", goal="go"))
    sent = delivery(trigger.trigger_id, secret, "m", T0)
    odd = Delivery(sent.trigger_id, {**sent.headers, "webhook-timestamp": stamp}, sent.body)
    with pytest.raises(TriggerSignatureError, match="Unix seconds") as caught:
        await deliveries.deliver(odd)
    assert http_status(caught.value) == 401
    assert not starts.by_key
    assert (await service.get(ALICE, trigger.trigger_id)).refused == 1
