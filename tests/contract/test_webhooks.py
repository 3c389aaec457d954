"""The webhook store and outbox contract, on memory, SQLite and the machine's PostgreSQL (two
stores over one database stand for two replicas): endpoints per tenant, the outbox written
once per event id, streams in position order claimed by exactly one holder, backoff and
expired claims, dead letters and redelivery, the sweep, and secrets resealed with a
rotated key ring."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from core.keyring import KeyRing, new_key, parse_key
from records.webhooks import (
    SECRET_PURPOSE,
    OutboxEvent,
    Stream,
    Webhook,
    event_id_of,
    secret_binding,
)
from stores.sql.database import Database
from stores.webhooks.base import WebhookOutbox, WebhookStore
from stores.webhooks.memory import InMemoryWebhooks
from stores.webhooks.sql import SqlWebhookStore
from stores.webhooks.sql_outbox import SqlWebhookOutbox
from tests.contract.conftest import SQL_BACKENDS, migrated_database

NOW = datetime(2026, 12, 9, 9, 0, tzinfo=UTC)
LEASE = NOW + timedelta(seconds=10)


@dataclass
class Replica:
    store: WebhookStore
    outbox: WebhookOutbox


@pytest.fixture(params=["memory", *SQL_BACKENDS])
async def replicas(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[Replica, Replica]]:
    if request.param == "memory":
        shared = InMemoryWebhooks()
        yield Replica(shared, shared), Replica(shared, shared)
        return
    async with migrated_database(request.param, tmp_path) as database:
        other = Database(database.engine)
        try:
            yield (
                Replica(SqlWebhookStore(database), SqlWebhookOutbox(database)),
                Replica(SqlWebhookStore(other), SqlWebhookOutbox(other)),
            )
        finally:
            await other.writer.close()


def hook(webhook_id: str, tenant: str = "acme", at: datetime = NOW, **fields: object) -> Webhook:
    made = Webhook(webhook_id, tenant, "http://127.0.0.1:9/in", created_at=at, secret="sealed")
    return replace(made, **fields)  # type: ignore[arg-type]


def event(n: int, task_id: str = "task_1", at: datetime = NOW) -> OutboxEvent:
    data = {"task_id": task_id, "n": n}
    return OutboxEvent(event_id_of(task_id, str(n)), "acme", task_id, "task.started", at, data)


async def test_endpoints_are_kept_per_tenant(replicas: tuple[Replica, Replica]) -> None:
    (a, b) = replicas
    for index in range(5):
        await a.store.create(hook(f"wh_{index}", at=NOW + timedelta(seconds=index)))
    await a.store.create(hook("wh_other", tenant="globex"))
    first = await b.store.list("acme", 2)
    assert [w.webhook_id for w in first.items] == ["wh_0", "wh_1"]
    rest = await b.store.list("acme", 10, first.next)
    assert [w.webhook_id for w in rest.items] == ["wh_2", "wh_3", "wh_4"]
    assert rest.next is None
    assert await b.store.get("globex", "wh_0") is None
    changed = hook("wh_1", event_types=("task.failed",), labels={"team": "a"}, paused=True)
    assert await b.store.update(changed)
    got = await a.store.get("acme", "wh_1")
    assert got is not None
    assert (got.event_types, dict(got.labels), got.paused) == (
        ("task.failed",),
        {"team": "a"},
        True,
    )
    assert got.secret == "sealed"
    assert await a.store.set_secret("acme", "wh_1", "sealed-2")
    assert (await b.store.of_tenant("acme"))[1].secret == "sealed-2"
    assert not await b.store.update(hook("wh_1", tenant="globex"))
    assert not await b.store.delete("globex", "wh_1")
    assert await b.store.delete("acme", "wh_1")
    assert await a.store.get("acme", "wh_1") is None


async def test_an_event_is_written_once_and_streams_keep_the_task_s_order(
    replicas: tuple[Replica, Replica],
) -> None:
    (a, b) = replicas
    await a.store.create(hook("wh_a"))
    await a.store.create(hook("wh_b"))
    for n in range(4):
        await a.outbox.write(event(n), ["wh_a", "wh_b"])
    await b.outbox.write(event(1), ["wh_a", "wh_b"])  # a repeat: nothing new
    await b.outbox.write(event(0, "task_2"), ["wh_a"])
    stream = Stream("acme", "wh_a", "task_1")
    due = await b.outbox.pending(stream, 10)
    assert [d.event.data["n"] for d in due] == [0, 1, 2, 3]
    positions = [d.event.position for d in due]
    assert positions == sorted(positions)
    assert len(set(positions)) == 4
    health = await a.store.get("acme", "wh_a")
    assert health is not None
    assert health.health.pending == 5


async def test_a_stream_has_exactly_one_holder(replicas: tuple[Replica, Replica]) -> None:
    (a, b) = replicas
    await a.store.create(hook("wh_a"))
    for task in range(6):
        await a.outbox.write(event(0, f"task_{task}"), ["wh_a"])
    for _ in range(3):  # claims at once, on both "replicas": each stream once
        got = await asyncio.gather(
            a.outbox.claim("replica-a", NOW, LEASE, 10), b.outbox.claim("replica-b", NOW, LEASE, 10)
        )
        held = [s.task_id for claimed in got for s in claimed]
        assert len(held) == len(set(held))
        if held:
            assert sorted(held) == [f"task_{n}" for n in range(6)]
    stream = Stream("acme", "wh_a", "task_0")
    holder = "replica-a" if await a.outbox.renew(stream, "replica-a", LEASE) else "replica-b"
    other = "replica-b" if holder == "replica-a" else "replica-a"
    assert not await b.outbox.renew(stream, other, LEASE)
    later = LEASE + timedelta(seconds=1)  # the holder died: its claims expire
    taken = await b.outbox.claim(other, later, later + timedelta(seconds=10), 10)
    assert len(taken) == 6
    assert not await a.outbox.renew(stream, holder, later)


async def test_a_failed_stream_waits_for_its_retry_and_paused_webhooks_are_not_claimed(
    replicas: tuple[Replica, Replica],
) -> None:
    (a, b) = replicas
    await a.store.create(hook("wh_a"))
    await a.store.create(hook("wh_p", paused=True))
    await a.outbox.write(event(0), ["wh_a", "wh_p"])
    [stream] = await a.outbox.claim("replica-a", NOW, LEASE, 10)
    assert stream.webhook_id == "wh_a"
    [due] = await a.outbox.pending(stream, 10)
    await a.outbox.failed(stream, due, "HTTP 503", NOW)
    retry = NOW + timedelta(seconds=30)
    await a.outbox.release(stream, "replica-a", retry)
    assert await b.outbox.claim("replica-b", NOW + timedelta(seconds=1), LEASE, 10) == []
    [again] = await b.outbox.claim("replica-b", retry, retry + timedelta(seconds=10), 10)
    [due] = await b.outbox.pending(again, 10)
    assert due.attempts == 1
    webhook = await a.store.get("acme", "wh_a")
    assert webhook is not None
    assert (webhook.health.failing_attempts, webhook.health.last_error) == (1, "HTTP 503")
    await b.outbox.delivered(again, due, retry)
    webhook = await a.store.get("acme", "wh_a")
    assert webhook is not None
    assert (webhook.health.pending, webhook.health.failing_attempts) == (0, 0)
    assert webhook.health.last_delivered_at == retry
    assert await b.outbox.pending(again, 10) == []


async def test_dead_letters_are_redelivered_and_swept(replicas: tuple[Replica, Replica]) -> None:
    (a, b) = replicas
    await a.store.create(hook("wh_a"))
    for n in range(3):
        await a.outbox.write(event(n), ["wh_a"])
    [stream] = await a.outbox.claim("replica-a", NOW, LEASE, 10)
    first, *_ = await a.outbox.pending(stream, 10)
    later = NOW + timedelta(hours=2)
    await a.outbox.give_up(stream, first, later - timedelta(minutes=30))  # while held
    swept = await b.outbox.sweep(later, 3600)  # the others, held by no one
    assert (swept.given_up, swept.pending, swept.dead) == (2, 0, 3)
    page = await b.store.dead_letters("acme", "wh_a", 2)
    assert [d.event_id for d in page.items] == [event(0).event_id, event(1).event_id]
    rest = await b.store.dead_letters("acme", "wh_a", 2, page.next)
    assert [d.event_id for d in rest.items] == [event(2).event_id]
    assert await b.store.dead_letters("globex", "wh_a", 10) == type(page)(())
    assert await b.store.redeliver("acme", "wh_a", [event(1).event_id], later) == 1
    [again] = await a.outbox.claim("replica-a", later, later + timedelta(seconds=9), 10)
    assert [d.event.event_id for d in await a.outbox.pending(again, 10)] == [event(1).event_id]
    much_later = later + timedelta(hours=2)  # the dead letters' retention passed too
    swept = await a.outbox.sweep(much_later, 3600)
    assert (swept.deleted, swept.given_up) == (2, 1)
    # the redelivered one was not delivered within its new retention: a dead letter again
    left = (await b.store.dead_letters("acme", "wh_a", 10)).items
    assert [d.event_id for d in left] == [event(1).event_id]


async def test_deleting_a_webhook_deletes_its_queue(replicas: tuple[Replica, Replica]) -> None:
    (a, b) = replicas
    await a.store.create(hook("wh_a"))
    await a.outbox.write(event(0), ["wh_a"])
    assert await b.store.delete("acme", "wh_a")
    assert await a.outbox.claim("replica-a", NOW, LEASE, 10) == []
    swept = await a.outbox.sweep(NOW, 3600)
    assert (swept.pending, swept.dead) == (0, 0)


async def test_reseal_moves_secrets_to_the_current_key(replicas: tuple[Replica, Replica]) -> None:
    (a, b) = replicas
    old_key, new = new_key(), new_key()
    old = KeyRing.parse([old_key])
    for webhook_id in ("wh_a", "wh_b"):
        bound = secret_binding("acme", webhook_id)
        sealed = old.seal(SECRET_PURPOSE, f"whsec_{webhook_id}".encode(), bound)
        await a.store.create(hook(webhook_id, secret=sealed))
    rotated = KeyRing([parse_key(new), parse_key(old_key)])
    for webhook in await b.store.of_tenant("acme"):  # the old rows still open
        bound = secret_binding("acme", webhook.webhook_id)
        assert rotated.open(SECRET_PURPOSE, webhook.secret, bound) == (
            f"whsec_{webhook.webhook_id}".encode()
        )
        assert rotated.sealed_with(webhook.secret) != rotated.current_id
    assert await b.store.reseal(rotated) == 2
    assert await a.store.reseal(rotated) == 0  # nothing left behind
    newest = KeyRing([parse_key(new)])  # the old key dropped: every secret still opens
    for webhook in await a.store.of_tenant("acme"):
        bound = secret_binding("acme", webhook.webhook_id)
        assert newest.sealed_with(webhook.secret) == newest.current_id
        assert newest.open(SECRET_PURPOSE, webhook.secret, bound).startswith(b"whsec_")


async def test_reseal_leaves_a_secret_that_does_not_open_and_moves_the_rest(
    replicas: tuple[Replica, Replica],
) -> None:
    """As every `SealedValues` store: a secret sealed with a key the ring no longer holds
    is left as it is (and logged), and the others still move to the current key."""
    (a, _) = replicas
    lost_key, kept_key, new = new_key(), new_key(), new_key()
    lost, kept = KeyRing.parse([lost_key]), KeyRing.parse([kept_key])
    lost_secret = lost.seal(SECRET_PURPOSE, b"whsec_lost", secret_binding("acme", "wh_lost"))
    await a.store.create(hook("wh_lost", secret=lost_secret))
    kept_secret = kept.seal(SECRET_PURPOSE, b"whsec_kept", secret_binding("acme", "wh_kept"))
    await a.store.create(hook("wh_kept", secret=kept_secret))
    ring = KeyRing.parse([new, kept_key])  # the lost key dropped from AGENTD_KEYS
    assert await a.store.reseal(ring) == 1
    secrets = {w.webhook_id: w.secret for w in await a.store.of_tenant("acme")}
    assert secrets["wh_lost"] == lost_secret
    assert ring.sealed_with(secrets["wh_kept"]) == ring.current_id
