"""MCP servers that misbehave, against the real agentd server: input schemas that would
make agentd fetch URLs or backtrack for ever."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from agentd.v1 import tasks_pb2, tools_pb2
from agentd_client import errors as client_errors
from tests.helpers import watched_http_server
from tests.integration.harness import assert_well_formed, final, harness, of_kind
from tests.integration.toolsets import (
    FAST,
    eventually,
    process_running,
    stdio_hostile,
    write_toolsets,
)
from tools.mcp.connection import ConnectionLimits, McpConnection
from tools.toolsets.parsing import parse_file

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING


def _settings(tmp_path: Path, toolsets: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"toolsets_file": write_toolsets(tmp_path / "toolsets.yaml", toolsets), **FAST, **more}


@pytest.mark.timeout(60)
async def test_hostile_schemas_fetch_nothing_and_never_fail_a_task(tmp_path: Path) -> None:
    call = {"tool_calls": [{"name": "evil_dangling", "arguments": {"q": "x"}}]}
    with watched_http_server() as (base, seen):
        env = {"HOSTILE_REF_URL": f"{base}/latest/meta-data.json"}
        settings = _settings(tmp_path, {"evil": stdio_hostile(tmp_path, env, level="read")})
        async with harness(tmp_path, [call, {"text": "could not"}], **settings) as h:
            listed = [t.name for t in await h.client.list_tools(toolset="evil")]
            assert listed == ["evil.dangling", "evil.fine", "evil.redos", "evil.storm"]
            assert h.server.toolsets is not None
            refused = sorted(p.problem for p in h.server.toolsets.problems)
            assert len(refused) == 3
            assert "'backref': its input schema: pattern" in refused[0]
            assert "'lookup': its input schema: $ref 'http://127.0.0.1:" in refused[1]
            assert "'nowhere': its input schema: $ref 'urn:nothing-here'" in refused[2]
            with pytest.raises(client_errors.ToolNotFoundError):
                await h.client.call_tool("evil.lookup", {"q": "x"})

            # A reference inside the schema that leads nowhere: the call is invalid.
            with pytest.raises(client_errors.ToolArgumentsInvalidError, match="cannot be checked"):
                await h.client.call_tool("evil.dangling", {"q": "x"})
            # A pattern a backtracking engine would take for ever on: RE2 answers at once.
            with pytest.raises(client_errors.ToolArgumentsInvalidError, match="does not match"):
                await h.client.call_tool("evil.redos", {"q": "a" * 5000 + "!"})
            assert (await h.client.call_tool("evil.redos", {"q": "aaaa"})).text == "ran with aaaa"

            events = await h.run("look it up", mode=FC, tools=["evil.dangling"])
            assert_well_formed(events)  # the task goes on
            [finished] = of_kind(events, "tool_call_finished")
            assert finished.error.kind == tools_pb2.TOOL_ERROR_KIND_FAILED
            assert "TOOL_ARGUMENTS_INVALID" in finished.error.message
            assert final(events).text == "could not"
            records = await h.server.durable.tool_calls.query("default")
            outcomes = [(r.tool_name, r.outcome) for r in records]
            assert outcomes == [
                ("evil.lookup", "not_found"),
                ("evil.dangling", "invalid"),
                ("evil.redos", "invalid"),
                ("evil.redos", "ok"),
                ("evil.dangling", "invalid"),
            ]
    assert seen == []  # no schema made agentd fetch anything


async def test_a_servers_helpers_go_with_it_and_its_death_is_noticed_at_once(
    tmp_path: Path,
) -> None:
    helper_file = tmp_path / "helper.pid"
    env = {"HOSTILE_HELPER_PID": str(helper_file)}
    settings = _settings(tmp_path, {"evil": stdio_hostile(tmp_path, env, level="read")})
    async with harness(tmp_path, [], **settings) as h:
        leader = int((tmp_path / "hostile.pid").read_text())
        helper = int(helper_file.read_text())
        assert process_running(helper)
        os.kill(leader, signal.SIGKILL)  # the server agentd started; its helper holds stdout

        async def down() -> bool:  # noticed with no ping (FAST pings never)
            return all(t.unavailable for t in await h.client.list_tools(toolset="evil"))

        await eventually(down)

        async def helper_gone() -> bool:
            return not process_running(helper)

        await eventually(helper_gone)

        async def back() -> bool:
            tools = await h.client.list_tools(toolset="evil")
            return not any(t.unavailable for t in tools)

        await eventually(back)
        assert (await h.client.call_tool("evil.fine", {"q": "x"})).text == "fine: x"
        second = int(helper_file.read_text())
        assert second != helper
        assert process_running(second)
    assert not process_running(second)  # a server stopped at shutdown takes its helper along


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
async def test_a_storm_of_list_changes_costs_one_listing(tmp_path: Path, protocol: str) -> None:
    log = tmp_path / "lists.log"
    toolset = stdio_hostile(tmp_path, {"NOTES_LOG": str(log)}, mcp={"protocol": protocol})
    found, problems, _ = parse_file({"toolsets": {"evil": toolset}}, "f.yaml", ())
    assert problems == []
    # A minute between listings: whatever the storm, none more comes during this test.
    limits = ConnectionLimits(ping_seconds=0, list_interval_seconds=60)
    connection = McpConnection(found["evil"], limits, lambda listed: None)
    connection.start()
    try:
        await connection.first_attempt()
        assert connection.connected
        stormed = await connection.call("storm", "evil.storm", {"times": 3000})
        assert stormed.content[0].model_dump()["text"] == "said it 3000 times"
        assert (await connection.call("fine", "evil.fine", {"q": "x"})).content
        await asyncio.sleep(0.2)  # not a measure: a chance for listings to happen, if any would
        assert log.read_text().splitlines() == ["list"]  # the listing at connection only
        assert connection.listings == 1
    finally:
        await connection.stop()


async def test_the_listing_a_storm_asked_for_comes_once_its_time_is_up(tmp_path: Path) -> None:
    log = tmp_path / "lists.log"
    toolset = stdio_hostile(tmp_path, {"NOTES_LOG": str(log)}, mcp={"protocol": "legacy"})
    found, _, _ = parse_file({"toolsets": {"evil": toolset}}, "f.yaml", ())
    limits = ConnectionLimits(ping_seconds=0, list_interval_seconds=0.5)
    connection = McpConnection(found["evil"], limits, lambda listed: None)
    connection.start()
    try:
        await connection.first_attempt()
        await connection.call("storm", "evil.storm", {"times": 500})

        async def listed_again() -> bool:
            return connection.listings >= 2

        await eventually(listed_again)
        assert connection.listings <= 3  # one per half second, not one per notification
    finally:
        await connection.stop()
