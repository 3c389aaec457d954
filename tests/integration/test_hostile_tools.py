"""Hostile input to the tools, round two: no call stalls the server, special files and
huge numbers fail cleanly, every redirect hop answers to the caller's grants, and
valid but odd input never crashes a tool. Only loopback is ever connected to."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

import pytest

from agentd_client import errors as client_errors
from agentd_client.client import AgentClient, to_python
from server.app import AgentdServer
from tests.helpers import watched_http_server
from tests.integration.trust import trusted

CALC_STALL = "(1/(3**8000*3**8000*3**8000))**1000"
QUERY_STALL = "[@,@]|" * 22 + "@"


async def _health_latency(client: AgentClient, until: asyncio.Task[Any]) -> float:
    """The slowest health check answered while `until` runs."""
    slowest = 0.0
    while not until.done():
        started = time.perf_counter()
        assert await client.health() == "SERVING"
        slowest = max(slowest, time.perf_counter() - started)
        await asyncio.sleep(0.01)
    return slowest


async def test_expensive_queries_and_numbers_never_stall_the_server(
    client: AgentClient,
) -> None:
    async def hostile() -> list[Any]:
        calls = [
            client.call_tool("json_query", {"data": {"a": 1}, "expression": QUERY_STALL}),
            client.call_tool("calculator", {"expression": CALC_STALL}),
            client.call_tool("calculator", {"expression": "9**9999 * 7**9999 / 3**9999"}),
            client.call_tool("json_query", {"data": [[1] * 100] * 90, "expression": "[*][*]"}),
        ]
        return list(await asyncio.gather(*calls))

    work = asyncio.create_task(hostile())
    slowest = await _health_latency(client, work)
    results = await work
    # Each hostile call would hold the loop for seconds; 0.5 s leaves room for a machine
    # whose cores are shared (a 0.1 s bound failed under a load average of 10).
    assert slowest < 0.5, f"a health check took {slowest:.3f} s"
    assert "result holds more than" in results[0].error.message
    assert "too large" in results[1].error.message
    assert results[2].HasField("error")  # bounded: refused before the work, or cheap
    assert not results[3].HasField("error")  # 9,000 values: allowed, and off the loop


async def test_calculator_results_up_to_its_promised_size(client: AgentClient) -> None:
    result = await client.call_tool("calculator", {"expression": "9**10000"})
    assert not result.HasField("error")
    assert len(result.text) == 9543  # over Python's 4,300-digit str() limit
    assert result.text.startswith("2")


async def test_special_files_fail_cleanly_and_block_nothing(
    server: AgentdServer, client: AgentClient
) -> None:
    workspace = server.settings.workspace_dir
    workspace.mkdir(parents=True, exist_ok=True)
    os.mkfifo(workspace / "pipe")
    reads = [client.call_tool("read_file", {"path": "pipe"}) for _ in range(12)]
    appends = [
        client.call_tool("write_file", {"path": "pipe", "content": "x", "mode": "append"})
        for _ in range(4)
    ]
    results = await asyncio.wait_for(asyncio.gather(*reads, *appends), timeout=10)
    assert all(r.HasField("error") and "not a regular file" in r.error.message for r in results)
    assert (await client.call_tool("calculator", {"expression": "1+1"})).text == "2"


@pytest.mark.parametrize(
    ("tool", "arguments", "field"),
    [
        ("read_file", {"path": "f.txt", "offset": 2**62}, "arguments.offset"),
        ("http_request", {"url": "http://127.0.0.1:99999/"}, "arguments.url"),
        ("current_time", {"timezone": "America"}, "arguments.timezone"),
        ("current_time", {"timezone": "Etc"}, "arguments.timezone"),
        (
            "json_query",
            {"data": "[" * 100_000 + "]" * 100_000, "expression": "@"},
            "arguments.data",
        ),
    ],
)
async def test_odd_input_is_a_clear_error_not_a_crash(
    client: AgentClient, tool: str, arguments: dict[str, Any], field: str
) -> None:
    with pytest.raises(client_errors.InvalidArgumentError) as refused:
        await client.call_tool(tool, arguments)
    assert [v.field for v in refused.value.field_violations] == [field]


async def test_odd_but_valid_requests_work(client: AgentClient) -> None:
    with watched_http_server() as (base, seen):
        path = await client.call_tool("http_request", {"url": f"{base}/echo-path/café?q=ü"})
        idna = await client.call_tool("http_request", {"url": f"{base}/charset-idna"})
    assert to_python(path.result)["body"] == "/echo-path/caf%C3%A9?q=%C3%BC"
    assert to_python(idna.result)["body"] == "héllo"  # an odd charset: read as UTF-8
    assert seen == ["GET /echo-path/caf%C3%A9?q=%C3%BC", "GET /charset-idna"]


@pytest.mark.parametrize("depth", [200_000, 1_000, 64, 32, 31])
async def test_a_deeply_nested_json_answer_comes_back_as_text(
    client: AgentClient, depth: int
) -> None:
    with watched_http_server() as (base, _):
        got = await client.call_tool(
            "http_request", {"url": f"{base}/deep-json/{depth}"}, timeout=20
        )
    assert got.error.message == ""
    result = to_python(got.result)
    assert result["status"] == 200
    assert result["body"] == "[" * depth + "]" * depth
    assert ("json" in result) is (depth <= 31)  # MAX_ANSWER_JSON_DEPTH, a level under the cap


async def test_every_redirect_hop_answers_to_the_grants(tmp_path: Path) -> None:
    with watched_http_server() as (base, seen), watched_http_server() as (other, elsewhere):
        async with trusted(tmp_path) as t:
            alice = await t.client("acme", "alice")
            await t.grant(
                "acme", "principal:alice", "http_request", "write",
                arguments={"url": (f"{base}/ok/",)},
            )  # fmt: skip
            inside = f"{base}/ok/hop/307?to={base}/secret"
            with pytest.raises(client_errors.PermissionDeniedError):
                await alice.call_tool("http_request", {"url": inside})
            with pytest.raises(client_errors.PermissionDeniedError):  # %2e%2e is ..
                await alice.call_tool("http_request", {"url": f"{base}/ok/%2e%2e/secret"})
            with pytest.raises(client_errors.PermissionDeniedError):  # off to another origin
                await alice.call_tool("http_request", {"url": f"{base}/ok/hop/302?to={other}/x"})
            fine = await alice.call_tool("http_request", {"url": f"{base}/ok/hop/302?to=/ok/x"})
            records = await t.tool_records("acme")
    assert to_python(fine.result)["status"] == 200
    assert not any(line.split()[1].startswith("/secret") for line in seen)
    assert [r.outcome for r in records] == ["refused", "denied", "refused", "ok"]
    assert elsewhere == []


async def test_a_redirect_to_another_origin_carries_no_secret_and_no_body(
    client: AgentClient,
) -> None:
    with watched_http_server() as (base, _), watched_http_server() as (other, elsewhere):
        posted = await client.call_tool(
            "http_request",
            {"url": f"{base}/hop/307?to={other}/record", "method": "POST", "body": "secret"},
        )
        got = await client.call_tool(
            "http_request",
            {"url": f"{base}/hop/302?to={other}/headers", "headers": {"X-Api-Key": "k-123"}},
        )
    assert "would send the request body there" in posted.error.message
    headers = to_python(got.result)["json"]
    assert "x-api-key" not in headers
    assert elsewhere == ["GET /headers"]  # the POST never reached the other origin


async def test_the_workspace_has_a_quota(tmp_path: Path) -> None:
    from tests.integration.harness import harness

    async with harness(tmp_path, [], workspace_max_bytes=1000, workspace_max_files=3) as h:
        call = h.client.call_tool
        assert not (await call("write_file", {"path": "a", "content": "x" * 600})).HasField("error")
        over = await call("write_file", {"path": "b", "content": "x" * 600})
        again = await call("write_file", {"path": "a", "content": "y" * 900})  # replaces 600
        await call("write_file", {"path": "c", "content": "z"})
        await call("write_file", {"path": "d", "content": "z"})
        crowded = await call("write_file", {"path": "e", "content": "z"})
    assert "quota of 1000 bytes" in over.error.message
    assert not again.HasField("error")
    assert "already holds 3 entries" in crowded.error.message
