"""A2A push notifications to a local receiver: every update of the task arrives, in order,
with the config's token and authentication (kept sealed in its row) and an event id; a
receiver that is down for 10 s gets everything once it is up; a URL outside the allowed
destinations is refused when the config is made. Config create/get/list/delete, another
tenant's task NOT_FOUND."""

from __future__ import annotations

import asyncio
import base64
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import grpc
import pytest
from a2a.types import a2a_pb2, a2a_pb2_grpc
from sqlalchemy import select

from agentd.v1 import events_pb2, tasks_pb2
from server.services.push import AUDIT_METHOD
from stores.sql.schema import a2a_push_configs, rpc_audit
from tests.integration.harness import harness

Received = list[dict[str, Any]]


class _Receiver(BaseHTTPRequestHandler):
    received: Received
    refused: list[str]
    """Event ids answered 503 while `down` is set."""
    down: threading.Event

    def log_message(self, format: str, *args: object) -> None:
        return

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["content-length"]))
        if self.down.is_set():
            self.refused.append(self.headers["x-agentd-event-id"])
            self.send_response(503)
            self.end_headers()
            return
        self.received.append(
            {
                "event_id": self.headers["x-agentd-event-id"],
                "token": self.headers["x-a2a-notification-token"],
                "authorization": self.headers["authorization"],
                "body": json.loads(body),
            }
        )
        self.send_response(204)
        self.end_headers()


@contextmanager
def receiver(
    port: int = 0, down: threading.Event | None = None, refused: list[str] | None = None
) -> Iterator[tuple[int, Received]]:
    """A receiver on 127.0.0.1; it answers 503 while `down` is set (noting in `refused`)."""
    received: Received = []
    attributes = {
        "received": received,
        "down": down or threading.Event(),
        "refused": refused if refused is not None else [],
    }
    handler = type("Receiver", (_Receiver,), attributes)
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], received
    finally:
        server.shutdown()
        server.server_close()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _send(url: str, message_id: str) -> a2a_pb2.SendMessageRequest:
    config = a2a_pb2.SendMessageConfiguration(return_immediately=True)
    config.task_push_notification_config.url = url
    config.task_push_notification_config.token = "tok-1"
    config.task_push_notification_config.authentication.scheme = "Bearer"
    config.task_push_notification_config.authentication.credentials = "hook-secret"
    message = a2a_pb2.Message(
        message_id=message_id, role=a2a_pb2.ROLE_USER, parts=[a2a_pb2.Part(text="6*7?")]
    )
    return a2a_pb2.SendMessageRequest(message=message, configuration=config)


def _updates(log: list[events_pb2.TaskEvent]) -> list[int]:
    """The positions of the log's events that are A2A updates."""
    kept = []
    for event in log:
        kind = event.WhichOneof("payload")
        if kind == "status_changed":
            if event.status_changed.current != tasks_pb2.TASK_STATUS_INPUT_REQUIRED:
                kept.append(event.sequence)
        elif kind in ("final_answer", "approval_requested", "input_requested"):
            kept.append(event.sequence)
    return kept


async def _until_complete(received: Received, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not any(
        r["body"].get("statusUpdate", {}).get("status", {}).get("state") == "TASK_STATE_COMPLETED"
        for r in received
    ):
        assert time.monotonic() < deadline, f"not delivered in time: {received}"
        await asyncio.sleep(0.05)


KEYS = base64.b64encode(bytes(range(32))).decode()
"""AGENTD_KEYS of the servers these tests start: push configs' secrets are sealed with it."""
SETTINGS: dict[str, Any] = {
    "a2a": True,
    "keys": KEYS,
    "http_allowed_networks": ["127.0.0.1/32"],
    "a2a_push_retry_cap_seconds": 1.0,
}


async def test_every_update_arrives_in_order_with_its_auth_and_event_id(tmp_path: Path) -> None:
    with receiver() as (port, received):
        async with harness(tmp_path, [{"text": "42"}], **SETTINGS) as h:
            stub: Any = a2a_pb2_grpc.A2AServiceStub(h.running.channel)  # type: ignore[no-untyped-call]
            sent = await stub.SendMessage(_send(f"http://127.0.0.1:{port}/hook", "p-1"))
            task_id = sent.task.id
            await _until_complete(received, 30)
            log = [e async for e in h.client.stream_task_events(task_id)]
            listed = await stub.ListTaskPushNotificationConfigs(
                a2a_pb2.ListTaskPushNotificationConfigsRequest(task_id=task_id)
            )
            async with h.server.durable.database.engine.connect() as connection:
                query = select(rpc_audit).where(rpc_audit.c.method == AUDIT_METHOD)
                audited = list((await connection.execute(query)).mappings())
                rows = list((await connection.execute(select(a2a_push_configs))).mappings())
    assert [(r["task_id"], r["code"]) for r in audited] == [(task_id, "OK")] * len(received)
    positions = [int(r["event_id"].split(":")[1]) for r in received]
    assert positions == _updates(log)  # every update, in order, once
    assert {r["event_id"].split(":")[0] for r in received} == {task_id}
    assert {(r["token"], r["authorization"]) for r in received} == {("tok-1", "Bearer hook-secret")}
    [row] = rows  # kept sealed: neither the token nor the credentials in plain text
    assert row["token"].startswith("enc:v1:")
    assert row["auth_credentials"].startswith("enc:v1:")
    assert "tok-1" not in str(row)
    assert "hook-secret" not in str(row)
    kinds = [next(iter(r["body"])) for r in received]
    assert kinds[-2:] == ["artifactUpdate", "statusUpdate"]
    assert received[-2]["body"]["artifactUpdate"]["artifact"]["parts"] == [{"text": "42"}]
    [config] = listed.configs
    assert config.url == f"http://127.0.0.1:{port}/hook"
    assert config.authentication.scheme == "Bearer"
    assert config.authentication.credentials == ""  # never shown back


async def test_a_receiver_down_for_10_s_gets_everything_once_it_is_up(tmp_path: Path) -> None:
    port = _free_port()  # nothing listens there yet: every POST fails, and is retried
    async with harness(tmp_path, [{"text": "42"}], **SETTINGS) as h:
        stub: Any = a2a_pb2_grpc.A2AServiceStub(h.running.channel)  # type: ignore[no-untyped-call]
        sent = await stub.SendMessage(_send(f"http://127.0.0.1:{port}/hook", "p-2"))
        log = [e async for e in h.client.stream_task_events(sent.task.id)]  # it ends
        await asyncio.sleep(10)
        with receiver(port) as (_, received):
            await _until_complete(received, 30)
    positions = [int(r["event_id"].split(":")[1]) for r in received]
    assert positions == _updates(log)


async def test_configs_are_checked_and_belong_to_the_tasks_tenant(tmp_path: Path) -> None:
    async with harness(tmp_path, [{"text": "42"}], **SETTINGS) as h:
        stub: Any = a2a_pb2_grpc.A2AServiceStub(h.running.channel)  # type: ignore[no-untyped-call]
        message = a2a_pb2.Message(
            message_id="p-3", role=a2a_pb2.ROLE_USER, parts=[a2a_pb2.Part(text="6*7?")]
        )
        sent = await stub.SendMessage(a2a_pb2.SendMessageRequest(message=message))
        task_id = sent.task.id
        for url in ("http://169.254.169.254/latest", "http://10.1.2.3/hook", "ftp://127.0.0.1/"):
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stub.CreateTaskPushNotificationConfig(
                    a2a_pb2.TaskPushNotificationConfig(task_id=task_id, url=url)
                )
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        made = await stub.CreateTaskPushNotificationConfig(
            a2a_pb2.TaskPushNotificationConfig(
                task_id=task_id, id="mine", url="http://127.0.0.1:9/hook"
            )
        )
        assert made.id == "mine"
        got = await stub.GetTaskPushNotificationConfig(
            a2a_pb2.GetTaskPushNotificationConfigRequest(task_id=task_id, id="mine")
        )
        assert got.url == "http://127.0.0.1:9/hook"
        await stub.DeleteTaskPushNotificationConfig(
            a2a_pb2.DeleteTaskPushNotificationConfigRequest(task_id=task_id, id="mine")
        )
        listed = await stub.ListTaskPushNotificationConfigs(
            a2a_pb2.ListTaskPushNotificationConfigsRequest(task_id=task_id)
        )
        assert list(listed.configs) == []
        with pytest.raises(grpc.aio.AioRpcError) as unknown:
            await stub.CreateTaskPushNotificationConfig(
                a2a_pb2.TaskPushNotificationConfig(
                    task_id="task_000000000000000000000000", url="http://127.0.0.1:9/hook"
                )
            )
        assert unknown.value.code() == grpc.StatusCode.NOT_FOUND
