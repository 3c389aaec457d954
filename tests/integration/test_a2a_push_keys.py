"""Push notifications' secrets and the server's keys, on real servers: without AGENTD_KEYS
a push config carrying a token or credentials is KEY_REQUIRED on A2A's gRPC binding and
on JSON-RPC, a message sent with such a config starts no task, and a config without them
is kept; the first start with a key (Redis, PostgreSQL) seals the rows an older server
kept in plain text, and their token and credentials are still sent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import grpc
import pytest
import structlog
from a2a.types import a2a_pb2, a2a_pb2_grpc
from sqlalchemy import select, update

from agentd_client.errors import KeyRequiredError
from agentd_client.status_details import from_rpc_error
from core.keyring import KeyRing
from stores.sql.schema import a2a_push_configs
from tests.integration.harness import harness
from tests.integration.test_a2a_push import KEYS, SETTINGS, _send, _until_complete, receiver

HOOK = "http://127.0.0.1:9/hook"


def _message(message_id: str) -> a2a_pb2.SendMessageRequest:
    message = a2a_pb2.Message(
        message_id=message_id, role=a2a_pb2.ROLE_USER, parts=[a2a_pb2.Part(text="6*7?")]
    )
    return a2a_pb2.SendMessageRequest(message=message)


async def test_without_a_key_secrets_are_key_required_and_nothing_starts(tmp_path: Path) -> None:
    import aiohttp

    settings = {**SETTINGS, "keys": None, "http_address": "127.0.0.1:0"}
    async with harness(tmp_path, [{"text": "42", "repeat": -1}], **settings) as h:
        stub: Any = a2a_pb2_grpc.A2AServiceStub(h.running.channel)  # type: ignore[no-untyped-call]
        task_id = (await stub.SendMessage(_message("k-1"))).task.id
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stub.CreateTaskPushNotificationConfig(
                a2a_pb2.TaskPushNotificationConfig(task_id=task_id, url=HOOK, token="tok-1")
            )
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        error = from_rpc_error(refused.value)
        assert isinstance(error, KeyRequiredError)
        assert error.reason == "KEY_REQUIRED"
        assert "a push notification config's token is kept encrypted" in error.message
        assert "set AGENTD_KEYS" in error.message

        with pytest.raises(grpc.aio.AioRpcError) as refused_send:
            await stub.SendMessage(_send(HOOK, "k-2"))  # token and credentials
        assert from_rpc_error(refused_send.value).reason == "KEY_REQUIRED"
        listed = await h.client.list_tasks()
        assert [t.task_id for t in listed.tasks] == [task_id]  # the refused one never started

        serving: Any = h.server.a2a
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "CreateTaskPushNotificationConfig",
            "params": {
                "taskId": task_id,
                "url": HOOK,
                "authentication": {"scheme": "Bearer", "credentials": "hook-secret"},
            },
        }
        async with (
            aiohttp.ClientSession() as http,
            http.post(
                serving.handler.cards.addresses.jsonrpc, json=body, headers={"A2A-Version": "1.0"}
            ) as answer,
        ):
            said = await answer.json()
        assert said["error"]["code"] == -32603, said
        assert said["error"]["message"].startswith("KEY_REQUIRED: a push notification config's")
        assert "credentials" in said["error"]["message"]

        kept = await stub.CreateTaskPushNotificationConfig(
            a2a_pb2.TaskPushNotificationConfig(task_id=task_id, id="bare", url=HOOK)
        )
        assert kept.id == "bare"
        async with h.server.durable.database.engine.connect() as connection:
            rows = list((await connection.execute(select(a2a_push_configs))).mappings())
        assert [(r["config_id"], r["token"], r["auth_credentials"]) for r in rows] == [
            ("bare", "", "")
        ]


@pytest.mark.redis
@pytest.mark.postgres
async def test_the_first_start_with_a_key_seals_what_was_kept_in_plain_text(
    tmp_path: Path, prefix: str, database: str
) -> None:
    shared = {**SETTINGS, "redis_url": "redis://127.0.0.1:6379/0", "redis_prefix": prefix}
    shared["database_url"] = database
    with receiver() as (port, received):
        hook = f"http://127.0.0.1:{port}/hook"
        async with harness(tmp_path / "old", [{"text": "42"}], **{**shared, "keys": None}) as h:
            stub: Any = a2a_pb2_grpc.A2AServiceStub(h.running.channel)  # type: ignore[no-untyped-call]
            request = _message("s-1")
            request.configuration.task_push_notification_config.url = hook
            task_id = (await stub.SendMessage(request)).task.id
            await _until_complete(received, 30)
            # What a server before the key ring kept: the secrets in plain text. Delivery
            # starts over, so that the next server sends them.
            plain = update(a2a_push_configs).values(
                token="tok-plain",
                auth_scheme="Bearer",
                auth_credentials="cred-plain",
                delivered_through=0,
                finished=False,
                claimed_by="",
                claimed_until=None,
            )
            async with h.server.durable.database.engine.begin() as connection:
                await connection.execute(plain)
        received.clear()
        with structlog.testing.capture_logs() as logs:
            async with harness(tmp_path / "new", [], **shared) as h:  # AGENTD_KEYS set
                async with h.server.durable.database.engine.connect() as connection:
                    [row] = (await connection.execute(select(a2a_push_configs))).mappings()
                await _until_complete(received, 30)
                stub = a2a_pb2_grpc.A2AServiceStub(h.running.channel)  # type: ignore[no-untyped-call]
                got = await stub.GetTaskPushNotificationConfig(
                    a2a_pb2.GetTaskPushNotificationConfigRequest(
                        task_id=task_id, id=row["config_id"]
                    )
                )
    ring = KeyRing.parse([KEYS])
    assert ring.sealed_with(row["token"]) == ring.current_id
    assert ring.sealed_with(row["auth_credentials"]) == ring.current_id
    assert "tok-plain" not in str(row)
    assert "cred-plain" not in str(row)
    [said] = [e for e in logs if e["event"].startswith("sealed push notification credentials")]
    assert (said["count"], said["key_id"]) == (2, ring.current_id)
    assert {(r["token"], r["authorization"]) for r in received} == {
        ("tok-plain", "Bearer cred-plain")
    }
    assert got.token == "tok-plain"
