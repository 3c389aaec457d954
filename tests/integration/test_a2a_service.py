"""A2A beside AgentService on the same port: listed by health and reflection, behind the
same interceptors (auth, rate limits, audit), and absent (SDK not even imported) when off."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import grpc
import pytest
from a2a.types import a2a_pb2, a2a_pb2_grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from records.keys import new_key
from tests.helpers import server_process
from tests.integration.harness import harness
from tests.integration.trust import trusted

A2A = "lf.a2a.v1.A2AService"


def _message(text: str, message_id: str) -> a2a_pb2.SendMessageRequest:
    return a2a_pb2.SendMessageRequest(
        message=a2a_pb2.Message(
            message_id=message_id, role=a2a_pb2.ROLE_USER, parts=[a2a_pb2.Part(text=text)]
        )
    )


async def _listed(channel: grpc.aio.Channel) -> set[str]:
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    request = reflection_pb2.ServerReflectionRequest(list_services="")
    replies = [r async for r in stub.ServerReflectionInfo(iter([request]))]
    return {s.name for s in replies[0].list_services_response.service}


@pytest.mark.parametrize("on", [True, False])
async def test_health_and_reflection_list_a2a_when_it_is_on(tmp_path: Path, on: bool) -> None:
    async with harness(tmp_path, [], a2a=on) as h:
        channel = h.running.channel
        assert (A2A in await _listed(channel)) is on
        health = health_pb2_grpc.HealthStub(channel)
        if on:
            answer = await health.Check(health_pb2.HealthCheckRequest(service=A2A))
            assert answer.status == health_pb2.HealthCheckResponse.SERVING
        else:
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await health.Check(health_pb2.HealthCheckRequest(service=A2A))
            assert refused.value.code() == grpc.StatusCode.NOT_FOUND


async def test_a2a_calls_pass_the_same_auth_rate_limits_and_audit(tmp_path: Path) -> None:
    async with trusted(
        tmp_path, [{"text": "42", "repeat": -1}], a2a=True, rate_limits="Execute=1/m"
    ) as t:
        made, plaintext = new_key("acme", "alice", ())
        await t.server.durable.api_keys.add(made)
        stub = a2a_pb2_grpc.A2AServiceStub(t.running.channel)  # type: ignore[no-untyped-call]
        with pytest.raises(grpc.aio.AioRpcError) as anonymous:
            await stub.SendMessage(_message("6*7?", "m1"))
        assert anonymous.value.code() == grpc.StatusCode.UNAUTHENTICATED

        credentials = [("authorization", f"Bearer {plaintext}")]
        sent = await stub.SendMessage(_message("6*7?", "m1"), metadata=credentials)
        assert sent.task.status.state == a2a_pb2.TASK_STATE_COMPLETED
        with pytest.raises(grpc.aio.AioRpcError) as limited:  # SendMessage counts as Execute
            await stub.SendMessage(_message("again", "m2"), metadata=credentials)
        assert limited.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED

        await t.server.audit.flush()
        records = [r for r in await t.rpc_records() if r.method.startswith(f"/{A2A}/")]
        assert [(r.principal_id, r.code) for r in records] == [
            ("unauthenticated", "UNAUTHENTICATED"),
            ("alice", "OK"),
            ("alice", "RESOURCE_EXHAUSTED"),
        ]
        assert records[1].task_id == sent.task.id


async def test_the_sdk_is_not_imported_unless_a2a_is_on() -> None:
    # (starlette and uvicorn come with mcp's client already: not A2A's to keep out.)
    probe = (
        "import sys, server.app, server.commands.cli; "
        "print(sorted(m for m in ('a2a', 'server.wiring.fronts.a2a_serving', 'server.a2a.http') "
        "if m in sys.modules))"
    )
    done = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


async def test_json_rpc_calls_pass_the_same_auth_rate_limits_and_audit(tmp_path: Path) -> None:
    import aiohttp

    async with trusted(
        tmp_path,
        [{"text": "42", "repeat": -1}],
        a2a=True,
        http_address="127.0.0.1:0",
        rate_limits="Execute=1/m",
    ) as t:
        made, plaintext = new_key("acme", "alice", ())
        await t.server.durable.api_keys.add(made)
        serving: Any = t.server.a2a
        url = serving.handler.cards.addresses.jsonrpc

        def call(message_id: str) -> dict[str, Any]:
            message = {"messageId": message_id, "role": "ROLE_USER", "parts": [{"text": "6*7?"}]}
            return {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "SendMessage",
                "params": {"message": message},
            }

        version = {"A2A-Version": "1.0"}
        credentials = {**version, "authorization": f"Bearer {plaintext}"}
        async with aiohttp.ClientSession() as http:
            async with http.post(url, json=call("j1"), headers=version) as anonymous:
                assert anonymous.status == 401
            async with http.post(url, json=call("j1"), headers=credentials) as sent:
                answer = await sent.json()
                assert answer["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
            async with http.post(url, json=call("j2"), headers=credentials) as limited:
                assert limited.status == 429
                assert limited.headers["retry-after"] == "60"
                [reason, _] = (await limited.json())["error"]["details"]
                assert reason["reason"] == "RATE_LIMITED"

        await t.server.audit.flush()
        records = [r for r in await t.rpc_records() if r.method.startswith(f"/{A2A}/")]
        assert [(r.principal_id, r.code, r.method) for r in records] == [
            ("unauthenticated", "UNAUTHENTICATED", f"/{A2A}/SendMessage"),
            ("alice", "OK", f"/{A2A}/SendMessage"),
            ("alice", "RESOURCE_EXHAUSTED", f"/{A2A}/SendMessage"),
        ]
        assert records[1].task_id == answer["result"]["task"]["id"]


def _a2a_lines(log: str) -> list[dict[str, Any]]:
    said = [json.loads(line) for line in log.splitlines() if line.startswith("{")]
    return [line for line in said if line["event"] == "A2A is on"]


def test_start_up_says_in_one_line_what_a2a_serves_and_where(tmp_path: Path) -> None:
    env = {"AGENTD_A2A": "true", "AGENTD_A2A_HTTP_ADDRESS": "127.0.0.1:0"}
    with server_process(tmp_path, env) as served:
        [line] = _a2a_lines(served.log())
        assert line["grpc"] == f"{served.address} ({A2A})"
        card_url = line["agent_card"]
        jsonrpc, header = line["json_rpc"].split(" (send the header ")
        assert card_url == f"{jsonrpc}.well-known/agent-card.json"
        assert header == "A2A-Version: 1.0)"
        with urllib.request.urlopen(card_url, timeout=10) as answer:  # the address is real
            card = json.load(answer)
        assert {i["url"] for i in card["supportedInterfaces"]} == {served.address, jsonrpc}

        def send(headers: dict[str, str]) -> dict[str, Any]:
            body = {"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "task_x"}}
            request = urllib.request.Request(
                jsonrpc, json.dumps(body).encode(), {"content-type": "application/json", **headers}
            )
            with urllib.request.urlopen(request, timeout=10) as answer:
                said: dict[str, Any] = json.load(answer)
                return said

        # Without the header the SDK takes the call for A2A 0.3: why the line names it.
        assert "'0.3' is not supported" in send({})["error"]["message"]
        assert send({"A2A-Version": "1.0"})["error"]["code"] == -32001  # TaskNotFoundError
        served.terminate()
        assert served.wait(timeout=30) == 0, served.log()  # A2A stops with the server


def test_start_up_says_a2a_is_on_grpc_alone_without_an_http_address(tmp_path: Path) -> None:
    with server_process(tmp_path, {"AGENTD_A2A": "true"}) as served:
        [line] = _a2a_lines(served.log())
        served.terminate()
        assert served.wait(timeout=30) == 0, served.log()
    assert line["grpc"] == f"{served.address} ({A2A})"
    assert "AGENTD_A2A_HTTP_ADDRESS" in line["http"]
    assert "json_rpc" not in line
