"""MCP toolsets through the real server, against real MCP servers written with the same SDK
(stdio, and streamable HTTP on 127.0.0.1): discovery, CallTool, a task's calls, the
audit record, list changes, a hung server, a server killed mid-call, a 50 MB result."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
import structlog

from agentd.v1 import tasks_pb2, tools_pb2
from agentd_client import errors as client_errors
from agentd_client.client import to_python
from core.metrics import REGISTRY
from tests.integration.harness import assert_well_formed, final, harness, of_kind
from tests.integration.toolsets import (
    FAST,
    eventually,
    http_notes_server,
    notes_log,
    process_running,
    stdio_notes,
    write_toolsets,
)

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
TOOLS: dict[str, dict[str, Any]] = {"add_note": {"level": "write"}, "slow": {"level": "write"}}
NOTES: dict[str, Any] = {"level": "read", "tools": TOOLS}


def _settings(tmp_path: Path, toolsets: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"toolsets_file": write_toolsets(tmp_path / "toolsets.yaml", toolsets), **FAST, **more}


async def test_stdio_tools_are_discovered_listed_and_called(tmp_path: Path) -> None:
    settings = _settings(tmp_path, {"notes": stdio_notes(tmp_path, **NOTES)})
    async with harness(tmp_path, [], **settings) as h:
        listed = {t.name: t for t in await h.client.list_tools(toolset="notes")}
        assert {"notes.search", "notes.add_note", "notes.grow", "notes.big"} <= set(listed)
        search = listed["notes.search"]
        assert (search.toolset, search.source, search.unavailable) == ("notes", "mcp", False)
        assert search.category == "notes"
        assert search.required_permission == tools_pb2.PERMISSION_LEVEL_READ
        assert search.idempotent  # from the server's readOnlyHint
        assert not listed["notes.add_note"].idempotent  # no hint: never retried
        assert listed["notes.add_note"].required_permission == tools_pb2.PERMISSION_LEVEL_WRITE
        assert to_python(search.parameters_schema)["required"] == ["query"]
        assert "calculator" not in listed  # the toolset filter

        found = await h.client.call_tool("notes.search", {"query": "tea", "limit": 2})
        assert found.text == "2 notes about tea"
        assert to_python(found.result) == {"result": "2 notes about tea"}
        with pytest.raises(client_errors.ToolArgumentsInvalidError, match="limit"):
            await h.client.call_tool("notes.search", {"query": "tea", "limit": "many"})
        assert notes_log(tmp_path) == ["search tea"]  # the invalid call never reached it

        records = await h.server.durable.tool_calls.query("default")
        mine = [(r.tool_name, r.decision, r.outcome, r.arguments) for r in records]
        assert mine == [
            ("notes.search", "allowed", "ok", {"query": "tea", "limit": 2}),
            ("notes.search", "allowed", "invalid", {"query": "tea", "limit": "many"}),
        ]


async def test_a_task_calls_an_mcp_tool_under_its_wire_name(tmp_path: Path) -> None:
    call = {"tool_calls": [{"name": "notes_search", "arguments": {"query": "tea"}}]}
    settings = _settings(tmp_path, {"notes": stdio_notes(tmp_path, **NOTES)})
    async with harness(tmp_path, [call, {"text": "3 notes."}], **settings) as h:
        events = await h.run("how many notes about tea?", mode=FC, tools=["notes.search"])
        assert_well_formed(events)
        [started] = of_kind(events, "tool_call_started")
        [finished] = of_kind(events, "tool_call_finished")
        assert (started.tool_name, finished.tool_name) == ("notes.search", "notes.search")
        assert finished.text == "3 notes about tea"
        assert final(events).text == "3 notes."
        offered = [t["function"]["name"] for t in h.llm.requests[0]["tools"]]
        assert offered == ["notes_search"]  # OpenAI refuses dots in function names
        history = h.llm.requests[1]["messages"]
        assert any(
            c["function"]["name"] == "notes_search"
            for m in history
            for c in m.get("tool_calls", [])
        )
        [record] = await h.server.durable.tool_calls.query("default")
        assert (record.tool_name, record.outcome, record.task_id) == (
            "notes.search",
            "ok",
            events[0].task_id,
        )


async def test_a_credential_in_an_mcp_result_is_redacted_from_events(tmp_path: Path) -> None:
    call = {"tool_calls": [{"name": "notes_leak", "arguments": {}}]}
    settings = _settings(tmp_path, {"notes": stdio_notes(tmp_path, **NOTES)})
    async with harness(tmp_path, [call, {"text": "done"}], **settings) as h:
        events = await h.run("what is the deploy key?", mode=FC, tools=["notes.leak"])
        assert_well_formed(events)
        [finished] = of_kind(events, "tool_call_finished")
        assert "[REDACTED]" in finished.text
        assert "Q7Q7Q7" not in str(events)


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
async def test_the_server_saying_its_list_changed_updates_list_tools(
    tmp_path: Path, protocol: str
) -> None:
    notes = stdio_notes(tmp_path, **NOTES, mcp={"protocol": protocol})
    async with harness(tmp_path, [], **_settings(tmp_path, {"notes": notes})) as h:
        assert "notes.extra" not in [t.name for t in await h.client.list_tools()]
        assert (await h.client.call_tool("notes.grow", {})).text == "grown"

        async def listed() -> bool:
            return "notes.extra" in [t.name for t in await h.client.list_tools()]

        await eventually(listed)
        assert (await h.client.call_tool("notes.extra", {"n": 21})).text == "42"


async def test_a_hung_server_times_out_its_call_and_holds_up_nothing_else(tmp_path: Path) -> None:
    tools = {**TOOLS, "hang": {"timeout_seconds": 1, "idempotent": False}}
    settings = _settings(tmp_path, {"notes": stdio_notes(tmp_path, level="read", tools=tools)})
    async with harness(tmp_path, [], **settings) as h:
        hung = asyncio.create_task(h.client.call_tool("notes.hang", {}))
        while not hung.done():  # meanwhile, the same server and a built-in answer
            assert (await h.client.call_tool("notes.search", {"query": "x"})).text
            assert (await h.client.call_tool("calculator", {"expression": "1+1"})).text == "2"
            await asyncio.sleep(0.1)
        result = await hung
        assert result.error.kind == tools_pb2.TOOL_ERROR_KIND_TIMEOUT
        assert "within 1 s" in result.error.message
        assert (await h.client.call_tool("notes.search", {"query": "after"})).text


async def test_a_server_flooding_its_stderr_is_logged_within_bounds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = _settings(tmp_path, {"notes": stdio_notes(tmp_path, **NOTES)})
    monkeypatch.setattr("tools.mcp.stdio.clock", lambda: 0.0)  # one window throughout
    with structlog.testing.capture_logs() as logs:
        async with harness(tmp_path, [], **settings) as h:
            flood = asyncio.create_task(h.client.call_tool("notes.flood", {"lines": 20_000}))
            assert (await h.client.call_tool("calculator", {"expression": "2*3"})).text == "6"
            assert (await flood).text == "flooded 20000"
            assert (await h.client.call_tool("notes.search", {"query": "calm"})).text
    lines = [e for e in logs if e.get("event") == "mcp server stderr"]
    assert len(lines) == 50  # at most 50 lines a window; the rest counted, not logged


async def test_a_transient_failure_is_retried_and_a_read_only_result_cached(
    tmp_path: Path,
) -> None:
    tools = {"late_once": {"timeout_seconds": 1}, "search": {"cache_seconds": 60}}
    settings = _settings(tmp_path, {"notes": stdio_notes(tmp_path, level="read", tools=tools)})
    async with harness(tmp_path, [], **settings) as h:
        late = await h.client.call_tool("notes.late_once", {"key": "k"})
        assert late.text == "on time: k"  # the first attempt hung; the second answered
        records = await h.server.durable.tool_calls.query("default")
        assert [(r.attempt, r.outcome) for r in records] == [(1, "timeout"), (2, "ok")]
        assert notes_log(tmp_path) == ["late_once k", "late_once k"]

        def hits() -> float:
            labels = {"tool": "notes.search", "result": "hit"}
            return REGISTRY.get_sample_value("agentd_tool_cache_total", labels) or 0.0

        before = hits()
        first = await h.client.call_tool("notes.search", {"query": "tea"})
        second = await h.client.call_tool("notes.search", {"query": "tea"})
        assert (first.cached, second.cached, second.text) == (False, True, first.text)
        assert hits() - before == 1
        assert notes_log(tmp_path).count("search tea") == 1  # the server ran once


async def test_a_stdio_server_killed_mid_call_is_reported_restarted_and_used_again(
    tmp_path: Path,
) -> None:
    settings = _settings(
        tmp_path, {"notes": stdio_notes(tmp_path, **NOTES)}, toolsets_restart_initial_seconds=1.0
    )
    async with harness(tmp_path, [], **settings) as h:
        first_pid = int((tmp_path / "notes.pid").read_text())
        call = asyncio.create_task(h.client.call_tool("notes.slow", {"seconds": 60}))

        async def started() -> bool:
            return "slow started" in notes_log(tmp_path)

        await eventually(started)
        os.kill(first_pid, signal.SIGKILL)  # the server agentd started for this test
        result = await call
        assert result.error.kind == tools_pb2.TOOL_ERROR_KIND_OUTCOME_UNKNOWN
        assert "was lost during the call" in result.error.message
        with pytest.raises(client_errors.ToolUnavailableError, match="down"):
            await h.client.call_tool("notes.search", {"query": "meanwhile"})
        assert all(t.unavailable for t in await h.client.list_tools(toolset="notes"))

        async def back() -> bool:
            return not (await h.client.list_tools(toolset="notes"))[0].unavailable

        await eventually(back)
        assert int((tmp_path / "notes.pid").read_text()) != first_pid  # a new process
        assert h.server.toolsets is not None
        connection = h.server.toolsets.connection("notes")
        assert connection is not None
        assert connection.restarts == 1
        assert (await h.client.call_tool("notes.search", {"query": "after"})).text
        records = await h.server.durable.tool_calls.query("default")
        outcomes = [(r.tool_name, r.outcome) for r in records]
        assert outcomes == [
            ("notes.slow", "outcome_unknown"),
            ("notes.search", "unavailable"),
            ("notes.search", "ok"),
        ]


async def test_a_task_sees_a_down_server_as_an_observation_and_goes_on(tmp_path: Path) -> None:
    call = {"tool_calls": [{"name": "notes_search", "arguments": {"query": "tea"}}]}
    settings = _settings(
        tmp_path, {"notes": stdio_notes(tmp_path, **NOTES)}, toolsets_restart_initial_seconds=30
    )
    async with harness(tmp_path, [call, {"text": "the notes are out of reach"}], **settings) as h:
        os.kill(int((tmp_path / "notes.pid").read_text()), signal.SIGKILL)  # agentd's child

        async def down() -> bool:
            return all(t.unavailable for t in await h.client.list_tools(toolset="notes"))

        await eventually(down)
        events = await h.run("notes about tea?", mode=FC, tools=["notes.search"])
        assert_well_formed(events)
        [finished] = of_kind(events, "tool_call_finished")
        assert finished.error.kind == tools_pb2.TOOL_ERROR_KIND_UNAVAILABLE
        assert "is down" in finished.error.message
        assert "is down" in str(h.llm.requests[1]["messages"])  # the model was told
        assert final(events).text == "the notes are out of reach"


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
async def test_an_http_server_is_discovered_called_and_reconnected(
    tmp_path: Path, protocol: str
) -> None:
    with http_notes_server(tmp_path) as (url, process):
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        mcp = {"url": url, "headers": {"X-Team": "agentd"}, "protocol": protocol}
        notes = {"mcp": mcp, **NOTES}
        async with harness(tmp_path, [], **_settings(tmp_path, {"notes": notes})) as h:
            listed = [t.name for t in await h.client.list_tools(toolset="notes")]
            assert "notes.search" in listed
            assert (await h.client.call_tool("notes.search", {"query": "web"})).text
            call = asyncio.create_task(h.client.call_tool("notes.slow", {"seconds": 60}))

            async def started() -> bool:
                return "slow started" in notes_log(tmp_path)

            await eventually(started)
            process.kill()  # the server this test started
            process.wait(timeout=10)
            result = await call
            assert result.error.kind == tools_pb2.TOOL_ERROR_KIND_OUTCOME_UNKNOWN
            with http_notes_server(tmp_path, port):  # back on the same address

                async def works() -> bool:
                    try:
                        return bool((await h.client.call_tool("notes.search", {"query": "b"})).text)
                    except client_errors.AgentdError:
                        return False

                await eventually(works)


@pytest.mark.parametrize(
    ("transport", "protocol"), [("stdio", "auto"), ("http", "auto"), ("http", "legacy")]
)
async def test_a_50_mb_result_is_refused_unread_within_bounded_memory(
    tmp_path: Path, transport: str, protocol: str
) -> None:
    with http_notes_server(tmp_path) as (url, _):
        notes = (
            stdio_notes(tmp_path, **NOTES)
            if transport == "stdio"
            else {"mcp": {"url": url, "protocol": protocol}, **NOTES}
        )
        settings = _settings(tmp_path, {"notes": notes}, toolsets_max_result_bytes=1_000_000)
        async with harness(tmp_path, [], **settings) as h:
            tracemalloc.start()
            try:
                result = await h.client.call_tool("notes.big", {"megabytes": 50})
                peak = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
            assert result.error.kind == tools_pb2.TOOL_ERROR_KIND_FAILED
            assert "over 1,000,000 bytes" in result.error.message
            # The answer is 100 MB as JSON (text and structured result); at most a few MB of
            # it were ever held (measured: about 1.5 MB over stdio, 0.7 MB over HTTP).
            assert peak < 10_000_000, peak
            assert (await h.client.call_tool("notes.search", {"query": "still"})).text


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
async def test_a_server_that_stops_answering_is_found_out_by_its_ping_and_restarted(
    tmp_path: Path, protocol: str
) -> None:
    notes = stdio_notes(tmp_path, **NOTES, mcp={"protocol": protocol})
    settings = _settings(
        # connect_seconds also bounds each ping: 8 s finds the silent server well within the
        # wait below, and lets a loaded machine start it (3 s failed under a load of 10).
        tmp_path,
        {"notes": notes},
        toolsets_ping_seconds=0.3,
        toolsets_connect_seconds=8,
    )
    async with harness(tmp_path, [], **settings) as h:
        first = int((tmp_path / "notes.pid").read_text())
        assert (await h.client.call_tool("notes.search", {"query": "before"})).text
        os.kill(first, signal.SIGSTOP)  # the server agentd started: alive, and silent
        try:

            async def restarted() -> bool:
                tools = await h.client.list_tools(toolset="notes")
                again = int((tmp_path / "notes.pid").read_text()) != first
                return again and not any(t.unavailable for t in tools)

            await eventually(restarted, seconds=40)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(first, signal.SIGCONT)
        assert not process_running(first)  # the silent one was ended, not left behind
        assert h.server.toolsets is not None
        connection = h.server.toolsets.connection("notes")
        assert connection is not None
        assert "a ping went unanswered" in connection.why
        assert (await h.client.call_tool("notes.search", {"query": "after"})).text


async def test_a_result_nested_100_deep_reaches_the_caller_as_text(tmp_path: Path) -> None:
    """Deeper than a protobuf Struct can hold (about 50 levels), within what the MCP SDK
    parses (about 120): held to the one depth cap, it arrives as its JSON text, never
    INTERNAL (a declared HTTP tool's 200 levels: test_toolsets_http)."""
    settings = _settings(tmp_path, {"notes": stdio_notes(tmp_path, **NOTES)})
    async with harness(tmp_path, [], **settings) as h:
        called = await h.client.call_tool("notes.deep", {"levels": 100})
        assert called.error.message == ""
        text = to_python(called.result)
        assert isinstance(text, str)
        assert text.count('"inner"') == 99
        assert '"note":"at the bottom"' in text
