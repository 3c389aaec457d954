"""Hostile input through the real server, auth on: every case gets the right status code,
runs nothing it should not, and leaves an audit record of the decision."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import jwt
import pytest

from agentd_client import errors as client_errors
from agentd_client import status_details
from agentd_client.client import AgentClient
from tests.helpers import nested_struct, proto_field, recording_http_server
from tests.integration.trust import Trust, trusted

SECRET = "k" * 40
ISSUER, AUDIENCE = "https://issuer.example", "agentd"
ACME_TASK = "task_acme000000000000000000"


def token(key: str = SECRET, **claims: Any) -> str:
    now = int(time.time())
    body = {"iss": ISSUER, "aud": AUDIENCE, "sub": "svc", "tenant": "acme", "exp": now + 300}
    return jwt.encode({**body, **claims}, key, "HS256")


@dataclass(frozen=True)
class Case:
    credentials: str
    """"alice" (acme, granted files/read and http_request), "mallory" (globex), a raw
    bearer token, or "" for none."""
    call: Callable[[AgentClient, str], Awaitable[Any]]
    error: type[client_errors.AgentdError]
    code: str
    tool: tuple[str, str, str] | None = None
    """(tool, decision, outcome) of the tool-call audit record, when a tool was asked for."""
    principal: str | None = None
    """The principal of the RPC audit record, when not the one the credentials name."""


LIST_TOOLS = "/agentd.v1.AgentService/ListTools"
YEAR = 365 * 86_400


async def _raw(address: str, method: str, payload: bytes, metadata: Any) -> None:
    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.unary_unary(method, lambda b: b, lambda b: b)
        try:
            await call(payload, metadata=metadata, timeout=10)
        except grpc.aio.AioRpcError as error:
            raise status_details.from_rpc_error(error) from None


CASES: dict[str, Case] = {
    "no credentials": Case("", lambda c, u: c.list_tools(), client_errors.UnauthenticatedError,
                           "UNAUTHENTICATED"),
    "forged JWT": Case(token("f" * 40), lambda c, u: c.list_tools(),
                       client_errors.UnauthenticatedError, "UNAUTHENTICATED"),
    "expired JWT": Case(token(exp=int(time.time()) - 60), lambda c, u: c.list_tools(),
                        client_errors.UnauthenticatedError, "UNAUTHENTICATED"),
    "JWT of no tenant": Case(token(tenant=None), lambda c, u: c.list_tools(),
                             client_errors.UnauthenticatedError, "UNAUTHENTICATED"),
    "two authorization headers": Case(
        "alice",
        lambda c, u: _raw(u, LIST_TOOLS, b"",
                          [*c._metadata, ("authorization", f"Bearer {token()}")]),
        client_errors.UnauthenticatedError, "UNAUTHENTICATED", principal="unauthenticated"),
    "API key and bearer token together": Case(
        "alice",
        lambda c, u: _raw(u, LIST_TOOLS, b"",
                          [("x-api-key", c._metadata[0][1].removeprefix("Bearer ")),
                           ("authorization", f"Bearer {token()}")]),
        client_errors.UnauthenticatedError, "UNAUTHENTICATED", principal="unauthenticated"),
    "JWT good for ten years": Case(token(exp=int(time.time()) + 10 * YEAR),
                                   lambda c, u: c.list_tools(),
                                   client_errors.UnauthenticatedError, "UNAUTHENTICATED"),
    "JWT expiry as a string": Case(token(exp=str(int(time.time()) + 300)),
                                   lambda c, u: c.list_tools(),
                                   client_errors.UnauthenticatedError, "UNAUTHENTICATED"),
    "JWT issued-at as a string": Case(token(iat="yesterday"), lambda c, u: c.list_tools(),
                                      client_errors.UnauthenticatedError, "UNAUTHENTICATED"),
    "JWT sub of 300 characters": Case(token(sub="s" * 300), lambda c, u: c.list_tools(),
                                      client_errors.UnauthenticatedError, "UNAUTHENTICATED"),
    "JWT tenant of 130 characters": Case(token(tenant="t" * 130), lambda c, u: c.list_tools(),
                                         client_errors.UnauthenticatedError, "UNAUTHENTICATED"),
    "JWT sub with a NUL": Case(token(sub="svc\x00admin"), lambda c, u: c.list_tools(),
                               client_errors.UnauthenticatedError, "UNAUTHENTICATED"),
    "JWT role of 1,000 characters": Case(token(roles=["r" * 1000]), lambda c, u: c.list_tools(),
                                         client_errors.UnauthenticatedError, "UNAUTHENTICATED"),
    "tool name with a NUL": Case("alice", lambda c, u: c.call_tool("read\x00file", {}),
                                 client_errors.InvalidArgumentError, "INVALID_ARGUMENT"),
    "tool name of 300 characters": Case("alice", lambda c, u: c.call_tool("t" * 300, {}),
                                        client_errors.InvalidArgumentError, "INVALID_ARGUMENT"),
    "another tenant's task": Case("mallory", lambda c, u: c.get_task(ACME_TASK),
                                  client_errors.TaskNotFoundError, "NOT_FOUND"),
    "another tenant's events": Case(
        "mallory", lambda c, u: anext(aiter(c.stream_task_events(ACME_TASK))),
        client_errors.TaskNotFoundError, "NOT_FOUND"),
    "another tenant's cancel": Case("mallory", lambda c, u: c.cancel_task(ACME_TASK),
                                    client_errors.TaskNotFoundError, "NOT_FOUND"),
    "path escape": Case(
        "alice", lambda c, u: c.call_tool("read_file", {"path": "../../etc/passwd"}),
        client_errors.PathOutsideWorkspaceError, "INVALID_ARGUMENT",
        ("read_file", "allowed", "refused")),
    "absolute path": Case("alice", lambda c, u: c.call_tool("read_file", {"path": "/etc/passwd"}),
                          client_errors.PathOutsideWorkspaceError, "INVALID_ARGUMENT",
                          ("read_file", "allowed", "refused")),
    "cloud metadata address": Case(
        "alice", lambda c, u: c.call_tool("http_request", {"url": "http://169.254.169.254/latest"}),
        client_errors.DestinationNotAllowedError, "PERMISSION_DENIED",
        ("http_request", "allowed", "refused")),
    "mapped private address": Case(
        "alice", lambda c, u: c.call_tool("http_request", {"url": "http://[::ffff:10.0.0.1]/"}),
        client_errors.DestinationNotAllowedError, "PERMISSION_DENIED",
        ("http_request", "allowed", "refused")),
    "loopback address": Case(
        "alice",
        lambda c, u: c.call_tool("http_request", {"url": f"{u}/record/x", "method": "POST"}),
        client_errors.DestinationNotAllowedError, "PERMISSION_DENIED",
        ("http_request", "allowed", "refused")),
    "tool without a grant": Case(
        "alice", lambda c, u: c.call_tool("write_file", {"path": "x.txt", "content": "pwned"}),
        client_errors.PermissionDeniedError, "PERMISSION_DENIED",
        ("write_file", "denied", "denied")),
    "unknown tool": Case("alice", lambda c, u: c.call_tool("rm_rf", {}),
                         client_errors.ToolNotFoundError, "NOT_FOUND",
                         ("rm_rf", "denied", "not_found")),
    "oversize arguments": Case(
        "alice", lambda c, u: c.call_tool("read_file", {"path": "a" * 300_000}),
        client_errors.RequestTooLargeError, "INVALID_ARGUMENT", ("read_file", "denied", "invalid")),
    "arguments of the wrong types": Case(
        "alice", lambda c, u: c.call_tool("read_file", {"path": {"$ne": None}, "extra": [1]}),
        client_errors.ToolArgumentsInvalidError, "INVALID_ARGUMENT",
        ("read_file", "allowed", "invalid")),
    "garbage request bytes": Case(
        "alice", lambda c, u: _raw(u, "/agentd.v1.AgentService/CallTool", b"\x0a\xff\xff\xff",
                                   c._metadata),
        client_errors.InvalidArgumentError, "INVALID_ARGUMENT"),
    "500-deep nesting": Case(
        "alice",
        lambda c, u: _raw(u, "/agentd.v1.AgentService/CallTool",
                          proto_field(0x0A, b"json_query") + proto_field(0x12, nested_struct(500)),
                          c._metadata),
        client_errors.InvalidArgumentError, "INVALID_ARGUMENT"),
}  # fmt: skip


async def _client(t: Trust, credentials: str) -> AgentClient:
    if credentials == "alice":
        return await t.client("acme", "alice")
    if credentials == "mallory":
        return await t.client("globex", "mallory", "admin")
    client = AgentClient(t.address, bearer_token=credentials or None)
    t.clients.append(client)
    return client


@pytest.mark.parametrize("name", list(CASES))
async def test_hostile_input(tmp_path: Path, name: str) -> None:
    case = CASES[name]
    with recording_http_server() as (url, received):
        async with trusted(
            tmp_path,
            jwt_issuer=ISSUER,
            jwt_audience=AUDIENCE,
            jwt_hs256_secret=SECRET,
            http_allowed_networks=[],  # nothing private, not even the test's own server
        ) as t:
            secret = tmp_path / "workspace" / "secret.txt"
            secret.write_text("the crown jewels")
            await t.grant("acme", "principal:alice", "category:files", "read")
            await t.grant("acme", "principal:alice", "http_request", "write")
            before = {p.name for p in (tmp_path / "workspace").iterdir()}
            client = await _client(t, case.credentials)
            address = url if name == "loopback address" else t.address
            with pytest.raises(case.error) as refused:
                await case.call(client, address)
            assert "crown jewels" not in str(refused.value)
            assert "root:" not in str(refused.value)

            # Nothing ran that should not have.
            assert {p.name for p in (tmp_path / "workspace").iterdir()} == before
            assert received == []

            # The audit log has the decision.
            rpcs = [r for r in await t.rpc_records() if not r.method.startswith("/grpc.")]
            assert [r.code for r in rpcs] == [case.code]
            expected_principal = case.principal or {"alice": "alice", "mallory": "mallory"}.get(
                case.credentials, "unauthenticated"
            )
            assert rpcs[0].principal_id == expected_principal
            if case.tool is not None:
                (record,) = await t.tool_records("acme")
                assert (record.tool_name, record.decision, record.outcome) == case.tool
            else:
                assert await t.tool_records("acme") == []


async def test_an_oversize_message_is_refused_by_the_transport(tmp_path: Path) -> None:
    async with trusted(tmp_path, max_message_bytes=64 * 1024) as t:
        alice = await t.client("acme", "alice")
        with pytest.raises(client_errors.ResourceExhaustedError):
            await alice.call_tool("read_file", {"path": "a" * 100_000})
        # grpc refuses the message before any handler (or interceptor behaviour) runs:
        # there is no call to audit, and no tool was asked for.
        assert await t.tool_records("acme") == []
