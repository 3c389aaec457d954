"""Authentication through the real server: API keys, JWTs (HS256, RS256, ES256 from a JWKS
file), the public health and reflection methods, tenants, and the development key."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from grpc_health.v1 import health_pb2, health_pb2_grpc

from agentd.v1 import tasks_pb2
from agentd_client import errors as client_errors
from agentd_client.client import AgentClient
from records.keys import new_key
from server.app import AgentdServer, _announce_auth
from tests.integration.harness import harness
from tests.servers import running_server, settings_in

SECRET = "s" * 40
ISSUER, AUDIENCE = "https://issuer.example", "agentd"
FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING


def _jwk(private: Any, kid: str, alg: str) -> dict[str, Any]:
    algorithm = jwt.algorithms.RSAAlgorithm if alg == "RS256" else jwt.algorithms.ECAlgorithm
    public = json.loads(algorithm.to_jwk(private.public_key()))
    return {**public, "kid": kid, "alg": alg, "use": "sig"}


@pytest.fixture(scope="module")
def signing_keys() -> dict[str, Any]:
    return {
        "RS256": rsa.generate_private_key(public_exponent=65537, key_size=2048),
        "ES256": ec.generate_private_key(ec.SECP256R1()),
    }


@pytest.fixture
async def secured(tmp_path: Path, signing_keys: dict[str, Any]) -> AsyncIterator[AgentdServer]:
    jwks = tmp_path / "jwks.json"
    jwks.write_text(
        json.dumps(
            {"keys": [_jwk(signing_keys["RS256"], "r1", "RS256"),
                      _jwk(signing_keys["ES256"], "e1", "ES256")]}
        )
    )  # fmt: skip
    settings = settings_in(
        tmp_path,
        auth="on",
        auth_cache_seconds=0,
        tool_permission="write",  # this suite is about who the caller is, not grants
        rate_limits="",
        metrics_address="",
        jwt_issuer=ISSUER,
        jwt_audience=AUDIENCE,
        jwt_hs256_secret=SECRET,
        jwt_jwks_file=jwks,
    )
    async with running_server(settings) as running:
        yield running.server


def token(claims: dict[str, Any], key: Any = SECRET, alg: str = "HS256", **header: Any) -> str:
    now = int(time.time())
    body = {"iss": ISSUER, "aud": AUDIENCE, "sub": "svc-a", "tenant": "acme", "exp": now + 300,
            "iat": now, **claims}  # fmt: skip
    return jwt.encode({k: v for k, v in body.items() if v is not None}, key, alg, headers=header)


async def add_key(server: AgentdServer, tenant: str, principal: str) -> tuple[str, str]:
    key, plaintext = new_key(tenant, principal, ("operator",))
    await server.durable.api_keys.add(key)
    return key.key_id, plaintext


async def refused(address: str, **credentials: Any) -> client_errors.AgentdError:
    async with AgentClient(address, **credentials) as client:
        with pytest.raises(client_errors.UnauthenticatedError) as info:
            await client.call_tool("calculator", {"expression": "1+1"})
    assert info.value.code is grpc.StatusCode.UNAUTHENTICATED
    return info.value


async def test_no_or_bad_credentials_are_refused_alike(
    secured: AgentdServer, signing_keys: dict[str, Any]
) -> None:
    address = f"127.0.0.1:{secured.port}"
    key_id, good = await add_key(secured, "acme", "svc-a")
    now = int(time.time())
    wrong_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    cases: dict[str, dict[str, Any]] = {
        "nothing": {},
        "garbage": {"api_key": "hello"},
        "wrong secret": {"api_key": good[:-4] + ("AAAA" if not good.endswith("AAAA") else "BBBB")},
        "unknown key id": {"api_key": "agd_000000000000_" + good.split("_", 2)[2]},
        "basic scheme": {"metadata": [("authorization", "Basic dXNlcjpwYXNz")]},
        # Under grpc's 8 KiB metadata soft limit: above it grpc itself refuses some calls
        # with RESOURCE_EXHAUSTED before any interceptor runs (at random up to the hard
        # limit), which is the transport's answer, not agentd's.
        "oversize": {"api_key": "x" * 7_000},
        "expired": {"bearer_token": token({"exp": now - 120})},
        "not yet valid": {"bearer_token": token({"nbf": now + 600})},
        "wrong issuer": {"bearer_token": token({"iss": "https://evil.example"})},
        "wrong audience": {"bearer_token": token({"aud": "someone-else"})},
        "no tenant": {"bearer_token": token({"tenant": None})},
        "bad signature": {"bearer_token": token({}, key="t" * 40)},
        "alg none": {"bearer_token": jwt.encode({"sub": "x"}, "", "none")},
        "forged RS256": {"bearer_token": token({}, wrong_key, "RS256", kid="r1")},
        "unknown kid": {"bearer_token": token({}, signing_keys["RS256"], "RS256", kid="zz")},
        "HS256 signed with the public key": {
            "bearer_token": token({}, "p" * 40, "HS256", kid="r1")
        },
    }
    messages = {name: str(await refused(address, **how)) for name, how in cases.items()}
    assert len(set(messages.values())) == 1, messages  # nothing tells an attacker which
    assert key_id not in next(iter(messages.values()))


async def test_api_keys_in_either_header_and_revocation(secured: AgentdServer) -> None:
    address = f"127.0.0.1:{secured.port}"
    key_id, plaintext = await add_key(secured, "acme", "svc-a")
    async with AgentClient(address, api_key=plaintext) as client:
        assert (await client.call_tool("calculator", {"expression": "2+3"})).text == "5"
    async with AgentClient(address, metadata=[("x-api-key", plaintext)]) as client:
        assert (await client.call_tool("calculator", {"expression": "2+4"})).text == "6"
    assert await secured.durable.api_keys.revoke(key_id)
    await refused(address, api_key=plaintext)


async def test_tokens_of_each_algorithm_are_accepted(
    secured: AgentdServer, signing_keys: dict[str, Any]
) -> None:
    address = f"127.0.0.1:{secured.port}"
    for credential in (
        token({}),
        token({}, signing_keys["RS256"], "RS256", kid="r1"),
        token({}, signing_keys["ES256"], "ES256", kid="e1"),
    ):
        async with AgentClient(address, bearer_token=credential) as client:
            assert (await client.call_tool("calculator", {"expression": "7*6"})).text == "42"


async def test_health_and_reflection_need_no_credentials(secured: AgentdServer) -> None:
    from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

    async with grpc.aio.insecure_channel(f"127.0.0.1:{secured.port}") as channel:
        health = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
        assert health.status == health_pb2.HealthCheckResponse.SERVING
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        replies = [r async for r in stub.ServerReflectionInfo(iter([request]))]
        names = {s.name for s in replies[0].list_services_response.service}
        assert "agentd.v1.AgentService" in names


async def test_another_tenants_task_is_not_found(tmp_path: Path) -> None:
    replies = [{"text": "done"}]
    async with harness(tmp_path, replies, auth="on", auth_cache_seconds=0) as h:
        address = f"127.0.0.1:{h.server.port}"
        _, mine = await add_key(h.server, "acme", "svc-a")
        _, theirs = await add_key(h.server, "globex", "svc-b")
        _, colleague = await add_key(h.server, "acme", "svc-c")
        async with (
            AgentClient(address, api_key=mine) as a,
            AgentClient(address, api_key=theirs) as b,
            AgentClient(address, api_key=colleague) as c,
        ):
            events = [e async for e in a.execute("hello", mode=FC)]
            task_id = events[0].task_id
            assert (await c.get_task(task_id)).status == tasks_pb2.TASK_STATUS_COMPLETED
            for attempt in (
                b.get_task(task_id),
                b.cancel_task(task_id),
                _drain(b.stream_task_events(task_id)),
            ):
                with pytest.raises(client_errors.NotFoundError) as info:
                    await attempt
                assert info.value.code is grpc.StatusCode.NOT_FOUND
            unknown = "task_" + "0" * 24
            with pytest.raises(client_errors.NotFoundError) as same:
                await b.get_task(unknown)
            with pytest.raises(client_errors.NotFoundError) as theirs_error:
                await b.get_task(task_id)
            assert str(same.value).replace(unknown, "ID") == str(theirs_error.value).replace(
                task_id, "ID"
            )
            assert [t.task_id for t in (await a.list_tasks()).tasks] == [task_id]
            assert list((await b.list_tasks()).tasks) == []


async def _drain(stream: AsyncIterator[Any]) -> None:
    async for _ in stream:
        pass


async def test_a_fresh_embedded_server_prints_a_working_development_key_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = settings_in(tmp_path)
    assert settings.auth == "on"  # the default
    async with running_server(settings) as running:
        server = running.server
        await _announce_auth(server)
        printed = capsys.readouterr().out
        assert "authentication is on" in printed
        plaintext = printed.strip().splitlines()[-1].split("=", 1)[1]
        async with running.client(api_key=plaintext) as client:
            assert (await client.call_tool("calculator", {"expression": "1+1"})).text == "2"
        await _announce_auth(server)  # a restart: a key exists, none is printed again
        assert "AGENTD_API_KEY" not in capsys.readouterr().out


async def test_streams_without_credentials_are_refused(secured: AgentdServer) -> None:
    async with AgentClient(f"127.0.0.1:{secured.port}") as client:
        for stream in (client.execute("hello"), client.stream_task_events("task_x")):
            with pytest.raises(client_errors.UnauthenticatedError):
                await _drain(stream)
