"""Webhooks on two replicas (Redis, PostgreSQL) and a receiver on 127.0.0.1 that checks
every signature with the `standardwebhooks` package: with the receiver down (503) for a
while and one replica killed with -9, every task's events arrive at least once and in
order; an event past a short retention lands in the dead letters and RedeliverWebhookEvents
delivers it; the webhooks table holds no secret in plain text; a wrong secret fails."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import standardwebhooks
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from agent.llm.fakes.script import Script
from agent.llm.fakes.server import FakeOpenAIServer
from agentd.v1 import tasks_pb2
from agentd_client.client import AgentClient
from core.keyring import new_key
from tests.helpers import server_process
from tests.integration.test_takeover import kill, replica_env

pytestmark = [pytest.mark.redis, pytest.mark.postgres]
COMPLETED = tasks_pb2.TASK_STATUS_COMPLETED
TASKS = 24


class Receiver:
    """What the receiver saw: deliveries taken, ids refused while down, bad signatures."""

    def __init__(self) -> None:
        self.secret = ""
        self.down = threading.Event()
        self.taken: list[dict[str, Any]] = []
        self.refused: list[str] = []
        self.unverified: list[str] = []
        self.raw: list[tuple[bytes, dict[str, str]]] = []


@contextmanager
def receiving(seen: Receiver) -> Iterator[int]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            return

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["content-length"]))
            headers = {k.lower(): v for k, v in self.headers.items()}
            if seen.down.is_set():
                seen.refused.append(headers.get("webhook-id", ""))
                self.send_response(503)
                self.end_headers()
                return
            try:
                payload = standardwebhooks.Webhook(seen.secret).verify(body, headers)
            except standardwebhooks.WebhookVerificationError as error:
                seen.unverified.append(str(error))
                self.send_response(400)
                self.end_headers()
                return
            seen.raw.append((body, headers))
            seen.taken.append({"id": headers["webhook-id"], **payload})
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


async def until(condition: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out: {what}"
        await asyncio.sleep(0.05)


def _env(llm: str, prefix: str, database: str, **extra: str) -> dict[str, str]:
    return replica_env(
        llm,
        prefix,
        database,
        AGENTD_ANONYMOUS_ROLES="admin",
        AGENTD_KEYS=KEY,
        AGENTD_WEBHOOK_LEASE_SECONDS="2",
        AGENTD_WEBHOOK_RETRY_BASE_SECONDS="0.1",
        AGENTD_WEBHOOK_RETRY_CAP_SECONDS="0.5",
        **extra,
    )


KEY = new_key()


async def test_every_event_arrives_in_order_through_an_outage_and_a_kill_9(
    tmp_path: Path, prefix: str, database: str
) -> None:
    seen = Receiver()
    seen.down.set()
    with receiving(seen) as port:
        async with FakeOpenAIServer(Script([{"text": "42"}], cycle=True)) as llm:
            env = _env(llm.base_url, prefix, database)
            with (
                server_process(tmp_path / "a", env) as first,
                server_process(tmp_path / "b", env) as second,
            ):
                async with AgentClient(first.address) as a, AgentClient(second.address) as b:
                    hook = await a.create_webhook(
                        f"http://127.0.0.1:{port}/hook",
                        event_types=["task.started", "task.completed"],
                        labels={"suite": "webhooks"},
                    )
                    seen.secret = hook.secret
                    started = [
                        await (a if n % 2 else b).start_task(
                            "6*7?", labels={"suite": "webhooks", "n": str(n)}
                        )
                        for n in range(TASKS)
                    ]
                    ignored = await b.start_task("6*7?")  # no label: not sent
                    ids = {t.task_id for t in started}

                    async def ended() -> bool:
                        for task_id in [*ids, ignored.task_id]:
                            if (await b.get_task(task_id)).status != COMPLETED:
                                return False
                        return True

                    deadline = time.monotonic() + 60
                    while not await ended():
                        assert time.monotonic() < deadline, "tasks did not end"
                        await asyncio.sleep(0.1)
                    await until(lambda: len(set(seen.refused)) >= 10, 30, "attempts while down")
                    kill(first)
                    seen.down.clear()

                    def arrived() -> bool:
                        kinds = {(d["data"]["task_id"], d["type"]) for d in seen.taken}
                        return len(kinds) == 2 * TASKS

                    await until(arrived, 60, "every event delivered")
                    health = await b.get_webhook(hook.webhook_id)
    assert seen.unverified == []
    by_task: dict[str, list[int]] = {}
    for delivery in seen.taken:
        data = delivery["data"]
        assert data["labels"]["suite"] == "webhooks"
        by_task.setdefault(data["task_id"], []).append(data["sequence"])
    assert set(by_task) == ids  # every task, the unlabelled one not
    for sequences in by_task.values():
        assert sequences == sorted(sequences)  # in order (a repeat next to itself)
        assert len(set(sequences)) == 2
    first_arrivals = {d["id"]: d["type"] for d in seen.taken}
    assert sorted(first_arrivals.values()).count("task.started") == TASKS
    assert set(seen.refused) <= set(first_arrivals)  # what was refused came later
    assert health.health.failing_attempts == 0
    body, headers = seen.raw[0]
    with pytest.raises(standardwebhooks.WebhookVerificationError):
        standardwebhooks.Webhook("whsec_" + "d3Jvbmctc2VjcmV0LXdyb25nLXNlY3JldA==").verify(
            body, headers
        )


async def test_an_event_past_its_retention_is_a_dead_letter_until_redelivered(
    tmp_path: Path, prefix: str, database: str
) -> None:
    seen = Receiver()
    seen.down.set()
    with receiving(seen) as port:
        async with FakeOpenAIServer(Script([{"text": "42"}], cycle=True)) as llm:
            env = _env(
                llm.base_url,
                prefix,
                database,
                AGENTD_WEBHOOK_RETENTION_SECONDS="1.5",
                AGENTD_WEBHOOK_SWEEP_SECONDS="0.3",
            )
            with server_process(tmp_path / "a", env) as running:
                async with AgentClient(running.address) as client:
                    hook = await client.create_webhook(
                        f"http://127.0.0.1:{port}/hook", event_types=["task.completed"]
                    )
                    seen.secret = hook.secret
                    task = await client.start_task("6*7?")

                    async def dead() -> list[Any]:
                        page = await client.list_webhook_dead_letters(hook.webhook_id)
                        return list(page.dead_letters)

                    deadline = time.monotonic() + 30
                    while not (letters := await dead()):
                        assert time.monotonic() < deadline, "no dead letter"
                        await asyncio.sleep(0.2)
                    [letter] = letters
                    assert (letter.task_id, letter.event_type) == (task.task_id, "task.completed")
                    assert letter.attempts >= 1
                    assert letter.last_error == "HTTP 503"
                    held = await client.get_webhook(hook.webhook_id)
                    assert held.health.dead_letters == 1
                    assert held.secret == ""  # shown only when made
                    seen.down.clear()
                    queued = await client.redeliver_webhook_events(hook.webhook_id)
                    assert queued == 1
                    await until(lambda: len(seen.taken) == 1, 20, "the redelivery")
                    deadline = time.monotonic() + 10
                    while await dead():
                        assert time.monotonic() < deadline, "still a dead letter"
                        await asyncio.sleep(0.1)
    [delivered] = seen.taken
    assert delivered["id"] == letter.event_id
    assert delivered["data"]["task_id"] == task.task_id
    assert delivered["data"]["stop_reason"] == "final_answer"
    engine = create_async_engine(database)
    try:
        async with engine.connect() as connection:
            rows = (await connection.execute(text("SELECT * FROM webhooks"))).all()
    finally:
        await engine.dispose()
    stored = json.dumps([[str(v) for v in row] for row in rows])
    raw = hook.secret.removeprefix("whsec_")
    assert raw[:16] not in stored
    assert hook.secret not in stored
    assert "enc:v1:" in stored
