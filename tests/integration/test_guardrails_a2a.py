"""Guardrails seen from A2A: a task whose output a check blocks leaks nothing of it into
`SendStreamingMessage`'s stream nor into push notifications, since both are read from the
task's log, which never holds it."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from a2a.types import a2a_pb2, a2a_pb2_grpc
from google.protobuf import json_format

from tests.integration.harness import harness
from tests.integration.test_a2a_push import SETTINGS, Received, receiver
from tests.integration.test_guardrails import BLOCKING, CARD, CARD_AND_PHRASE, PHRASE, _guardrails


def _send(text: str, message_id: str, hook: str = "") -> a2a_pb2.SendMessageRequest:
    config = a2a_pb2.SendMessageConfiguration(return_immediately=bool(hook))
    if hook:
        config.task_push_notification_config.url = hook
        config.task_push_notification_config.token = "tok-1"
    message = a2a_pb2.Message(
        message_id=message_id, role=a2a_pb2.ROLE_USER, parts=[a2a_pb2.Part(text=text)]
    )
    return a2a_pb2.SendMessageRequest(message=message, configuration=config)


def _leaked(text: str) -> list[str]:
    flat = text.replace(" ", "")
    return [n for n in (CARD, PHRASE) if n in text or n.replace(" ", "") in flat]


async def _until_failed(received: Received, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not any(
        r["body"].get("statusUpdate", {}).get("status", {}).get("state") == "TASK_STATE_FAILED"
        for r in received
    ):
        assert time.monotonic() < deadline, f"not delivered in time: {received}"
        await asyncio.sleep(0.05)


async def test_a_blocked_output_reaches_no_a2a_stream_nor_push(tmp_path: Path) -> None:
    replies: list[dict[str, Any]] = [CARD_AND_PHRASE, CARD_AND_PHRASE]
    with receiver() as (port, received):
        settings = {**SETTINGS, **_guardrails(tmp_path, *BLOCKING)}
        async with harness(tmp_path, replies, guardrail_window_chars=16, **settings) as h:
            stub: Any = a2a_pb2_grpc.A2AServiceStub(h.running.channel)  # type: ignore[no-untyped-call]
            pushed = await stub.SendMessage(
                _send("Summarise the quarter", "g-1", f"http://127.0.0.1:{port}/hook")
            )
            await _until_failed(received, 30)
            streamed = [
                json_format.MessageToJson(update)
                async for update in stub.SendStreamingMessage(_send("And again", "g-2"))
            ]
            log = [e async for e in h.client.stream_task_events(pushed.task.id)]
    states = [r["body"].get("statusUpdate", {}).get("status", {}).get("state") for r in received]
    assert "TASK_STATE_FAILED" in states
    assert _leaked(json.dumps([r["body"] for r in received])) == []
    assert any("TASK_STATE_FAILED" in update for update in streamed)
    assert _leaked("".join(streamed)) == []
    assert any(e.WhichOneof("payload") == "guardrail_decided" for e in log)
