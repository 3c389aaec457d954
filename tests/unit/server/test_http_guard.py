"""The HTTP address's guard, in front of a door of this module's own (not A2A's): what it
promises every door (server.http.door) is kept on a real socket, with the in-memory key
store, rate limiters and RPC audit log agentd ships."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Sequence

import aiohttp
import pytest
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from auth.authenticator import Authenticator
from auth.throttle import FailureThrottle
from core.identity import ANONYMOUS, Principal
from records.keys import new_key
from server.http.address import HttpAddress
from server.http.checks import GuardChecks
from server.http.door import audited, call_of, limited, public, signed
from server.http.errors import error_response
from stores.api_keys.memory import InMemoryKeyStore
from stores.audit.memory import InMemoryRpcAuditLog
from stores.rate_limits.base import Rate, RateLimiter, parse_limits
from stores.rate_limits.memory import InMemoryRateLimiter

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"


class EchoDoor:
    """A door that answers who called and what it was sent, and counts its calls."""

    name = "echo"
    service = "echo.v1.Echo"

    def __init__(self) -> None:
        self.calls: list[bytes] = []
        self.running_now = False
        self.ran = False

    def routes(self) -> Sequence[BaseRoute]:
        return [
            Route("/echo", self._echo, methods=["POST"]),
            Route("/stream", self._stream, methods=["POST"]),
            Route("/broken", self._broken, methods=["POST"]),
            public(Route("/open", self._open, methods=["GET"])),
            signed(Route("/signed/{name}", self._signed, methods=["POST"])),
        ]

    def method_of(self, request: Request, body: bytes) -> str:
        names = {"/echo": "Echo", "/stream": "Stream", "/broken": "Broken"}
        if request.url.path.startswith("/signed/"):
            return "Echo"
        return names.get(request.url.path, "invalid")

    def starts_task(self, method: str) -> bool:
        return method in ("Echo", "Stream")

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        self.running_now = self.ran = True
        yield
        self.running_now = False

    async def _echo(self, request: Request) -> Response:
        body = await request.body()
        self.calls.append(body)
        call = call_of(request)
        if body == b"bad":
            audited(request, "INVALID_ARGUMENT")
            return JSONResponse({"error": "bad"}, status_code=400)
        audited(request, "OK", "task_1")
        said = {"principal": call.principal.id, "roles": list(call.principal.roles)}
        return JSONResponse({**said, "trace": call.trace_id, "size": len(body)})

    async def _signed(self, request: Request) -> Response:
        """A signed call: one named `junk...` is refused (its token taken from the
        refusals' bucket), any other is its name's, of acme (its token taken there)."""
        name = request.path_params["name"]
        if name.startswith("junk"):
            throttled = await limited(request)
            if throttled is not None:
                return error_response(throttled)
            audited(request, "NOT_FOUND")
            return JSONResponse({"error": "no such sender"}, status_code=404)
        throttled = await limited(request, Principal(f"thing:{name}", "acme"))
        if throttled is not None:
            return error_response(throttled)
        return await self._echo(request)

    async def _stream(self, request: Request) -> Response:
        self.calls.append(await request.body())

        async def events() -> AsyncIterator[bytes]:
            for n in range(3):
                yield f"data: {n}\n\n".encode()
                await asyncio.sleep(0.05)

        return StreamingResponse(events(), media_type="text/event-stream")

    async def _broken(self, request: Request) -> Response:
        raise RuntimeError("a bug")

    async def _open(self, request: Request) -> Response:
        return JSONResponse({"principal": call_of(request).principal.id})


class Served:
    def __init__(self, door: EchoDoor, audit: InMemoryRpcAuditLog, url: str, key: str) -> None:
        self.door, self.audit, self.url, self.key = door, audit, url, key
        self.keys = InMemoryKeyStore()

    @property
    def bearer(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self.key}"}

    def records(self) -> list[tuple[str, str, str, str]]:
        return [(r.principal_id, r.method, r.code, r.task_id) for r in self.audit.records]


@contextlib.asynccontextmanager
async def served(
    *,
    auth: bool = True,
    limits: str = "",
    max_body: int = 1024,
    limiter: RateLimiter | None = None,
    throttle: FailureThrottle | None = None,
) -> AsyncIterator[Served]:
    keys = InMemoryKeyStore()
    made, plaintext = new_key("acme", "alice", ("reader",))
    await keys.add(made)
    audit = InMemoryRpcAuditLog()
    checks = GuardChecks(
        Authenticator(keys) if auth else None,
        Principal(ANONYMOUS.id, ANONYMOUS.tenant, ("admin",)),
        ("gateway",),
        limiter or InMemoryRateLimiter(parse_limits(limits)),
        InMemoryRateLimiter({}),
        audit,
        max_body,
        throttle,
    )
    door = EchoDoor()
    address = HttpAddress("127.0.0.1:0", [door], checks)
    port = await address.start()
    try:
        serving = Served(door, audit, f"http://127.0.0.1:{port}", plaintext)
        serving.keys = keys
        yield serving
    finally:
        await address.stop()


async def test_a_caller_with_a_key_reaches_the_door_as_itself_and_is_audited_once() -> None:
    async with served() as s, aiohttp.ClientSession() as http:
        headers = {**s.bearer, "traceparent": f"00-{TRACE}-00f067aa0ba902b7-01"}
        async with http.post(f"{s.url}/echo", data=b"hello", headers=headers) as answer:
            assert answer.status == 200
            said = await answer.json()
    assert said == {"principal": "alice", "roles": ["reader"], "trace": TRACE, "size": 5}
    assert s.records() == [("alice", "/echo.v1.Echo/Echo", "OK", "task_1")]
    [record] = s.audit.records
    assert (record.tenant, record.trace_id) == ("acme", TRACE)


async def test_without_credentials_it_is_401_and_the_door_is_not_called() -> None:
    async with served() as s, aiohttp.ClientSession() as http:
        for headers in ({}, {"authorization": "Bearer agd_nothing_of_ours"}):
            async with http.post(f"{s.url}/echo", data=b"hello", headers=headers) as answer:
                assert answer.status == 401
                assert answer.headers["www-authenticate"] == "Bearer"
                error = (await answer.json())["error"]
                assert error["status"] == "UNAUTHENTICATED"
                assert error["details"][0]["reason"] == "UNAUTHENTICATED"
    assert s.door.calls == []
    assert s.records() == [("unauthenticated", "/echo.v1.Echo/Echo", "UNAUTHENTICATED", "")] * 2


async def test_with_auth_off_every_caller_is_anonymous_with_its_roles() -> None:
    async with (
        served(auth=False) as s,
        aiohttp.ClientSession() as http,
        http.post(f"{s.url}/echo", data=b"x") as answer,
    ):
        said = await answer.json()
    assert (said["principal"], said["roles"]) == ("anonymous", ["admin"])
    assert s.records() == [("anonymous", "/echo.v1.Echo/Echo", "OK", "task_1")]


async def test_a_body_over_the_limit_by_its_length_is_413_and_never_reaches_the_door() -> None:
    async with served(max_body=1024) as s, aiohttp.ClientSession() as http:
        async with http.post(f"{s.url}/echo", data=b"x" * 1024, headers=s.bearer) as answer:
            assert answer.status == 200  # at the limit: served
        async with http.post(f"{s.url}/echo", data=b"x" * 1025, headers=s.bearer) as answer:
            assert answer.status == 413
            error = (await answer.json())["error"]
    assert error["details"][0]["reason"] == "REQUEST_TOO_LARGE"
    assert error["details"][1]["fieldViolations"][0]["field"] == "body"
    assert [len(body) for body in s.door.calls] == [1024]
    assert [r[2] for r in s.records()] == ["OK", "INVALID_ARGUMENT"]


async def chunked(url: str, path: str, chunks: list[bytes], headers: dict[str, str]) -> bytes:
    """What the address answers a body sent in chunks (no content-length)."""
    host, port = url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    lines = [f"POST {path} HTTP/1.1", f"host: {host}", "transfer-encoding: chunked"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    for chunk in chunks:
        writer.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
    writer.write(b"0\r\n\r\n")
    await writer.drain()
    answer = await reader.read(65536)
    writer.close()
    with contextlib.suppress(ConnectionError):
        await writer.wait_closed()
    return answer


async def test_a_chunked_body_is_cut_off_once_it_passes_the_limit() -> None:
    async with served(max_body=1024) as s:
        small = await chunked(s.url, "/echo", [b"x" * 500, b"y" * 500], s.bearer)
        assert small.startswith(b"HTTP/1.1 200")
        large = await chunked(s.url, "/echo", [b"x" * 600] * 4, s.bearer)
        assert large.startswith(b"HTTP/1.1 413")
        assert b"REQUEST_TOO_LARGE" in large
    assert [len(body) for body in s.door.calls] == [1000]


async def test_a_call_that_starts_a_task_takes_from_executes_rate() -> None:
    async with served(limits="Execute=1/m") as s, aiohttp.ClientSession() as http:
        async with http.post(f"{s.url}/echo", data=b"1", headers=s.bearer) as answer:
            assert answer.status == 200
        async with http.post(f"{s.url}/stream", data=b"2", headers=s.bearer) as answer:
            assert answer.status == 429
            assert 1 <= int(answer.headers["retry-after"]) <= 60
            error = (await answer.json())["error"]
        async with http.post(f"{s.url}/broken", data=b"3", headers=s.bearer) as answer:
            assert answer.status == 500  # another bucket: served (and broken)
    assert error["details"][0]["reason"] == "RATE_LIMITED"
    assert s.door.calls == [b"1"]
    assert [r[1:3] for r in s.records()] == [
        ("/echo.v1.Echo/Echo", "OK"),
        ("/echo.v1.Echo/Stream", "RESOURCE_EXHAUSTED"),
        ("/echo.v1.Echo/Broken", "INTERNAL"),
    ]


async def test_a_signed_route_asks_no_key_but_keeps_the_limits_and_the_audit() -> None:
    async with (
        served(limits="Execute=1/m", max_body=16) as s,  # per principal
        aiohttp.ClientSession() as http,
    ):
        wrong_key = {"authorization": "Bearer agd_nothing_of_ours"}
        async with http.post(f"{s.url}/signed/a", data=b"1", headers=wrong_key) as answer:
            assert answer.status == 200  # its credentials are the door's to check
            said = await answer.json()
        async with http.post(f"{s.url}/signed/a", data=b"2") as answer:
            assert answer.status == 429  # the same sender's bucket
        async with http.post(f"{s.url}/signed/c", data=b"3") as answer:
            assert answer.status == 200  # another sender: a bucket of its own
        async with http.post(f"{s.url}/signed/b", data=b"x" * 17) as answer:
            assert answer.status == 413
    assert (said["principal"], said["roles"]) == ("thing:a", [])
    assert s.door.calls == [b"1", b"3"]
    assert s.records() == [
        ("thing:a", "/echo.v1.Echo/Echo", "OK", "task_1"),
        ("thing:a", "/echo.v1.Echo/Echo", "RESOURCE_EXHAUSTED", ""),
        ("thing:c", "/echo.v1.Echo/Echo", "OK", "task_1"),
        (SENDER, "/echo.v1.Echo/Echo", "INVALID_ARGUMENT", ""),
    ]


SENDER = "sender:/signed/{name}@127.0.0.1"
"""A signed route's caller before its door names it: the route's template and the
client's address."""


async def test_a_flood_of_refused_signed_calls_never_empties_a_known_sender_s_bucket() -> None:
    """Behind a load balancer every sender has one address: refusals take from that
    address's bucket (made-up ids mint none), real senders' calls from their own."""
    limiter = InMemoryRateLimiter(parse_limits("Execute=3/m"))
    async with served(limiter=limiter) as s, aiohttp.ClientSession() as http:
        statuses = []
        for n in range(20):
            async with http.post(f"{s.url}/signed/junk{uuid.uuid4().hex}", data=b"%d" % n) as a:
                statuses.append(a.status)
        for name in ("a", "a", "b", "a"):
            async with http.post(f"{s.url}/signed/{name}", data=b"real") as answer:
                statuses.append(answer.status)
        other = aiohttp.TCPConnector(local_addr=("127.0.0.2", 0))
        async with (
            aiohttp.ClientSession(connector=other) as elsewhere,
            elsewhere.post(f"{s.url}/signed/junk{uuid.uuid4().hex}", data=b"x") as answer,
        ):
            assert answer.status == 404  # another address: a refusals' bucket of its own
    assert statuses == [404] * 3 + [429] * 17 + [200] * 4
    assert len(s.records()) == 25  # one record per call
    assert {r[0] for r in s.records()} == {
        SENDER,
        "sender:/signed/{name}@127.0.0.2",
        "thing:a",
        "thing:b",
    }


async def test_a_stream_is_recorded_once_when_it_starts_with_its_status_code() -> None:
    async with served() as s, aiohttp.ClientSession() as http:
        async with http.post(f"{s.url}/stream", data=b"go", headers=s.bearer) as answer:
            assert answer.status == 200
            first = await answer.content.readline()
            assert first == b"data: 0\n"
            assert s.records() == [("alice", "/echo.v1.Echo/Stream", "OK", "")]  # started
            rest = await answer.read()
        async with http.post(f"{s.url}/echo", data=b"bad", headers=s.bearer) as answer:
            assert answer.status == 400
    assert rest.count(b"data:") == 2
    assert [r[2] for r in s.records()] == ["OK", "INVALID_ARGUMENT"]  # the door's code


async def test_an_unknown_path_is_404_in_json_and_a_public_route_needs_no_key() -> None:
    async with served() as s, aiohttp.ClientSession() as http:
        async with http.get(f"{s.url}/nowhere", headers=s.bearer) as answer:
            assert answer.status == 404
            assert (await answer.json())["error"]["status"] == "NOT_FOUND"
        async with http.get(f"{s.url}/open") as answer:
            assert answer.status == 200
            assert await answer.json() == {"principal": "public"}
        async with http.get(f"{s.url}/echo", headers=s.bearer) as answer:
            assert answer.status == 405  # the door's path, not its method
            assert answer.headers["allow"] == "POST"
            assert (await answer.json())["error"]["status"] == "UNIMPLEMENTED"
    assert s.records() == [("alice", "/echo.v1.Echo/Echo", "UNIMPLEMENTED", "")]


async def test_a_door_runs_while_the_address_serves() -> None:
    async with served() as s:
        assert s.door.running_now
    assert s.door.ran
    assert not s.door.running_now


@pytest.mark.parametrize("gateway", [True, False])
async def test_a_gateway_names_its_end_user_and_no_one_else_may(gateway: bool) -> None:
    async with served() as s, aiohttp.ClientSession() as http:
        roles = ("gateway",) if gateway else ()
        made, plaintext = new_key("acme", "portal", roles)
        await s.keys.add(made)
        headers = {"authorization": f"Bearer {plaintext}", "agentd-on-behalf-of": "bob"}
        async with http.post(f"{s.url}/echo", data=b"x", headers=headers) as answer:
            said = await answer.json()
    if gateway:
        assert said["principal"] == "bob"
        [record] = s.audit.records
        assert (record.principal_id, record.via) == ("bob", "portal")
    else:
        assert said["error"]["status"] == "PERMISSION_DENIED"
        assert s.door.calls == []


async def test_rate_limits_out_of_reach_let_the_call_through_as_on_grpc() -> None:
    """The Redis limiter fails open (it logs that it could not check): the guard follows it."""
    import redis.asyncio as redis

    from stores.rate_limits.redis import RedisRateLimiter

    nowhere = redis.Redis(host="127.0.0.1", port=1, socket_connect_timeout=1)  # nothing there
    limiter = RedisRateLimiter(nowhere, parse_limits("Execute=1/m"), "agentd:test:", "principal")
    try:
        async with served(limiter=limiter) as s, aiohttp.ClientSession() as http:
            for _ in range(2):
                async with http.post(f"{s.url}/echo", data=b"x", headers=s.bearer) as answer:
                    assert answer.status == 200
    finally:
        await nowhere.aclose()
    assert s.door.calls == [b"x", b"x"]


async def test_an_address_with_too_many_refused_credentials_is_slowed_down() -> None:
    async with (
        served(throttle=FailureThrottle(Rate(2, 60.0))) as s,
        aiohttp.ClientSession() as http,
    ):
        async with http.post(f"{s.url}/echo", data=b"x", headers=s.bearer) as answer:
            assert answer.status == 200  # alice's key is now known good
        statuses = []
        for _ in range(3):
            bad = {"authorization": "Bearer agd_nothing_of_ours"}
            async with http.post(f"{s.url}/echo", data=b"x", headers=bad) as answer:
                statuses.append(answer.status)
        async with http.post(f"{s.url}/echo", data=b"x", headers=s.bearer) as answer:
            assert answer.status == 200  # a key known good still gets through
    assert statuses == [401, 401, 429]
    assert [r[0] for r in s.records()] == ["alice", "unauthenticated", "unauthenticated", "alice"]
