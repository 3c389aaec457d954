"""The HTTP address of a real server (AGENTD_HTTP_ADDRESS), A2A's door on it: a body over
AGENTD_HTTP_MAX_BODY_BYTES is refused 413 whether its length is said or it comes in
chunks, and no task is stored; a caller without credentials is refused 401, one past its
rate 429; each call leaves one audit record under the door's name of it; an unknown path
is 404; the address's former setting AGENTD_A2A_HTTP_ADDRESS still serves it; and a door
added to `server.wiring.fronts.http.DOORS` is served with the same guard."""

from __future__ import annotations

import contextlib
import json
import urllib.request
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from records.keys import new_key
from server.http.door import audited, call_of
from server.wiring.fronts import http as wiring
from tests.helpers import server_process
from tests.integration.trust import Trust, trusted
from tests.unit.server.test_http_guard import chunked

A2A = "lf.a2a.v1.A2AService"
VERSION = {"A2A-Version": "1.0"}


def send_message(message_id: str, text: str = "6*7?") -> dict[str, Any]:
    message = {"messageId": message_id, "role": "ROLE_USER", "parts": [{"text": text}]}
    return {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}}


async def key(t: Trust, tenant: str, principal: str) -> dict[str, str]:
    made, plaintext = new_key(tenant, principal, ())
    await t.server.durable.api_keys.add(made)
    return {**VERSION, "authorization": f"Bearer {plaintext}"}


def base_url(t: Trust) -> str:
    serving: Any = t.server.a2a
    url: str = serving.handler.cards.addresses.jsonrpc
    return url


async def task_count(t: Trust) -> int:
    client = await t.client("acme", "alice")
    return len((await client.list_tasks()).tasks)


async def a2a_records(t: Trust) -> list[tuple[str, str, str]]:
    await t.server.audit.flush()
    records = [r for r in await t.rpc_records() if r.method.startswith(f"/{A2A}/")]
    return [(r.principal_id, r.code, r.method) for r in records]


async def test_an_oversized_body_is_413_and_nothing_is_stored(tmp_path: Path) -> None:
    replies = [{"text": "42", "repeat": -1}]
    settings = {"a2a": True, "http_address": "127.0.0.1:0", "http_max_body_bytes": 2048}
    async with trusted(tmp_path, replies, **settings) as t:
        headers = await key(t, "acme", "alice")
        url = base_url(t)
        large = json.dumps(send_message("big", "x" * 4096)).encode()
        async with aiohttp.ClientSession() as http:
            async with http.post(url, data=large, headers=headers) as refused:
                assert refused.status == 413
                error = (await refused.json())["error"]
            host = url.removeprefix("http://").rstrip("/")
            pieces = [large[i : i + 1000] for i in range(0, len(large), 1000)]
            answer = await chunked(f"http://{host}", "/", pieces, headers)
            assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
            assert await task_count(t) == 0  # neither reached the door
            small = json.dumps(send_message("small")).encode()
            async with http.post(url, data=small, headers=headers) as served:
                assert served.status == 200
                sent = await served.json()
        assert await task_count(t) == 1
        assert sent["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
        assert error["details"][0]["reason"] == "REQUEST_TOO_LARGE"
        assert "more than the limit of 2048 bytes" in error["message"]
        assert await a2a_records(t) == [
            ("alice", "INVALID_ARGUMENT", f"/{A2A}/unknown"),
            ("alice", "INVALID_ARGUMENT", f"/{A2A}/unknown"),
            ("alice", "OK", f"/{A2A}/SendMessage"),
        ]


async def test_401_429_404_and_one_audit_record_per_call(tmp_path: Path) -> None:
    replies = [{"text": "42", "repeat": -1}]
    settings = {"a2a": True, "http_address": "127.0.0.1:0", "rate_limits": "Execute=1/m"}
    async with trusted(tmp_path, replies, **settings) as t:
        headers = await key(t, "acme", "alice")
        url = base_url(t)
        async with aiohttp.ClientSession() as http:
            async with http.post(url, json=send_message("m1"), headers=VERSION) as anonymous:
                assert anonymous.status == 401
                assert anonymous.headers["www-authenticate"] == "Bearer"
                assert (await anonymous.json())["error"]["status"] == "UNAUTHENTICATED"
            async with http.post(url, json=send_message("m1"), headers=headers) as sent:
                assert sent.status == 200
            async with http.post(url, json=send_message("m2"), headers=headers) as limited:
                assert limited.status == 429
                assert int(limited.headers["retry-after"]) >= 1
            async with http.get(f"{url}nowhere", headers=headers) as unknown:
                assert unknown.status == 404
                assert (await unknown.json())["error"]["status"] == "NOT_FOUND"
            async with http.get(f"{url}.well-known/agent-card.json") as card:  # public
                assert card.status == 200
        assert await task_count(t) == 1
        assert await a2a_records(t) == [
            ("unauthenticated", "UNAUTHENTICATED", f"/{A2A}/SendMessage"),
            ("alice", "OK", f"/{A2A}/SendMessage"),
            ("alice", "RESOURCE_EXHAUSTED", f"/{A2A}/SendMessage"),
        ]
        health = health_pb2_grpc.HealthStub(t.running.channel)
        answer = await health.Check(health_pb2.HealthCheckRequest(service=wiring.HEALTH_NAME))
        assert answer.status == health_pb2.HealthCheckResponse.SERVING


def test_the_former_setting_still_serves_the_address(tmp_path: Path) -> None:
    env = {"AGENTD_A2A": "true", "AGENTD_A2A_HTTP_ADDRESS": "127.0.0.1:0"}
    with server_process(tmp_path, env) as served:
        said = [json.loads(line) for line in served.log().splitlines() if line.startswith("{")]
        [line] = [s for s in said if s["event"] == "HTTP address serving"]
        assert line["doors"] == ["a2a"]
        card_url = f"{line['url']}.well-known/agent-card.json"
        with urllib.request.urlopen(card_url, timeout=10) as answer:
            assert json.load(answer)["name"] == "agentd"
        served.terminate()
        assert served.wait(timeout=30) == 0, served.log()


class WhoDoor:
    """A door of this test's own: it says who called and which agents the engine knows."""

    name = "mcp"  # stands in for a door built in another branch
    service = "who.v1"

    def __init__(self, parts: wiring.DoorParts) -> None:
        self.parts = parts

    def routes(self) -> Sequence[BaseRoute]:
        return [Route("/who", self._who, methods=["POST"])]

    def method_of(self, request: Request, body: bytes) -> str:
        return "Who"

    def starts_task(self, method: str) -> bool:
        return False

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        yield

    async def _who(self, request: Request) -> Response:
        call = call_of(request)
        audited(request, "OK")
        return JSONResponse({"principal": call.principal.id, "tenant": call.principal.tenant})


async def test_a_door_added_to_the_wiring_is_served_behind_the_same_guard(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(wiring.DOORS, "mcp", WhoDoor)
    async with trusted(tmp_path, http_address="127.0.0.1:0", http_doors=["mcp"]) as t:
        assert t.server.a2a is None
        assert t.server.http is not None
        url = t.server.http.url
        headers = await key(t, "acme", "carol")
        async with aiohttp.ClientSession() as client:
            async with client.post(f"{url}who") as refused:
                assert refused.status == 401
            async with client.post(f"{url}who", headers=headers) as answer:
                assert await answer.json() == {"principal": "carol", "tenant": "acme"}
        await t.server.audit.flush()
        records = [r for r in await t.rpc_records() if r.method.startswith("/who.v1/")]
        assert [(r.principal_id, r.code, r.method) for r in records] == [
            ("unauthenticated", "UNAUTHENTICATED", "/who.v1/Who"),
            ("carol", "OK", "/who.v1/Who"),
        ]
