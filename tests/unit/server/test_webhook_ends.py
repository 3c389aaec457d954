"""A task's end is sent to a webhook once the task's stored state agrees: an end the store
refused (a run's late end after a cancel won) is dropped unsent, and an end told before
its task's state is saved waits for it (a receiver on 127.0.0.1 counts what it is sent)."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import standardwebhooks

from core.keyring import KeyRing, new_key
from records.tasks import Task, TaskStatus
from records.webhooks import SECRET_PURPOSE, OutboxEvent, Stream, Webhook, secret_binding
from server.delivery.signing import new_secret
from server.services.webhook_delivery import WebhookDeliverer
from stores.webhooks.memory import InMemoryWebhooks

LOCAL = (ipaddress.ip_network("127.0.0.0/8"),)


@contextmanager
def receiver(secret: str, seen: list[str]) -> Iterator[int]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            return

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["content-length"]))
            headers = {k.lower(): v for k, v in self.headers.items()}
            payload = standardwebhooks.Webhook(secret).verify(body, headers)
            seen.append(json.loads(json.dumps(payload))["type"])
            self.send_response(204)
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def _end(event_id: str, kind: str) -> OutboxEvent:
    return OutboxEvent(event_id, "acme", "task_1", kind, datetime.now(UTC), {"task_id": "task_1"})


async def _until(seen: list[str], count: int) -> None:
    for _ in range(500):  # 10 s at most
        if len(seen) >= count:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"the receiver got {seen} within 10 s, not {count} deliveries")


async def test_only_the_end_the_store_kept_is_sent_and_only_once_it_is_kept() -> None:
    ring, secret = KeyRing.parse([new_key()]), new_secret()
    store = InMemoryWebhooks()
    stored = Task("task_1", "acme", "alice", "6*7?")  # running: its end not saved yet
    seen: list[str] = []

    async def find(tenant: str, task_id: str) -> Task | None:
        return stored if (tenant, task_id) == ("acme", "task_1") else None

    with receiver(secret, seen) as port:
        sealed = ring.seal(SECRET_PURPOSE, secret.encode(), secret_binding("acme", "wh_1"))
        hook = Webhook("wh_1", "acme", f"http://127.0.0.1:{port}/", secret=sealed)
        await store.create(hook)
        await store.write(_end("evt_run", "task.completed"), ["wh_1"])  # the run's late end
        await store.write(_end("evt_cancel", "task.cancelled"), ["wh_1"])  # the cancel's
        deliverer = WebhookDeliverer(
            store, store, ring, "r1", LOCAL, retention_seconds=60, poll_seconds=0.05, find=find
        )
        job = asyncio.create_task(deliverer.run())
        try:
            await asyncio.sleep(0.5)
            assert seen == []  # neither end is stored yet: nothing is sent
            stored.status = TaskStatus.CANCELLED  # the cancel won
            await _until(seen, 1)
            await asyncio.sleep(0.3)
        finally:
            job.cancel()
            await asyncio.gather(job, return_exceptions=True)
    assert seen == ["task.cancelled"]
    assert await store.pending(Stream("acme", "wh_1", "task_1"), 10) == []
