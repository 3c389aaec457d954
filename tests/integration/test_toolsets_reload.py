"""The toolsets file read again while the server runs: ListTools follows it, a running task
keeps its tools (a removed one answers clearly), a broken toolset keeps its last good
definition, names that collide and secrets written out are refused, never logged."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import structlog
import yaml

from agentd.v1 import tasks_pb2, tools_pb2
from tests.integration.harness import assert_well_formed, harness, of_kind
from tests.integration.toolsets import (
    FAST,
    eventually,
    notes_log,
    process_running,
    stdio_notes,
    write_toolsets,
)

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING


def declared(*names: str, url: str = "http://127.0.0.1:9/x") -> dict[str, Any]:
    """An HTTP toolset of tools that are never called here (nothing listens at its URL)."""
    return {"http": {}, "level": "read", "tools": {name: {"url": url} for name in names}}


async def _names(h: Any, toolset: str = "") -> list[str]:
    return [t.name for t in await h.client.list_tools(toolset=toolset)]


async def test_list_tools_follows_the_file(tmp_path: Path) -> None:
    path = write_toolsets(tmp_path / "toolsets.yaml", {"crm": declared("a", "b")})
    async with harness(tmp_path, [], toolsets_file=path, **FAST) as h:
        assert await _names(h, "crm") == ["crm.a", "crm.b"]
        write_toolsets(path, {"crm": declared("a"), "erp": declared("c")})

        async def changed() -> bool:
            return [n for n in await _names(h) if "." in n] == ["crm.a", "erp.c"]

        await eventually(changed)
        write_toolsets(path, {"erp": declared("c")})

        async def removed() -> bool:
            return [n for n in await _names(h) if "." in n] == ["erp.c"]

        await eventually(removed)


async def test_a_running_task_keeps_its_tools_and_a_removed_one_answers_clearly(
    tmp_path: Path,
) -> None:
    later = {"delay_seconds": 1.5, "tool_calls": [{"name": "crm_a", "arguments": {}}]}
    path = write_toolsets(tmp_path / "toolsets.yaml", {"crm": declared("a")})
    async with harness(tmp_path, [later, {"text": "done"}], toolsets_file=path, **FAST) as h:
        assert h.server.toolsets is not None
        stream = h.client.execute("use crm.a", mode=FC, tools=["crm.a"])
        events = [await anext(stream)]
        write_toolsets(path, {"erp": declared("c")})
        assert await h.server.toolsets.reload()  # at once, while the model thinks
        assert "crm.a" not in await _names(h)
        events.extend([event async for event in stream])

        assert_well_formed(events)
        [finished] = of_kind(events, "tool_call_finished")
        assert finished.tool_name == "crm.a"
        assert finished.error.kind == tools_pb2.TOOL_ERROR_KIND_UNAVAILABLE
        assert "removed from the toolsets after this task started" in finished.error.message
        # The task's tools stayed what it started with: the next request still offers it.
        assert [t["function"]["name"] for t in h.llm.requests[1]["tools"]] == ["crm_a"]


async def test_a_broken_toolset_keeps_its_last_good_definition(tmp_path: Path) -> None:
    path = write_toolsets(tmp_path / "toolsets.yaml", {"crm": declared("a"), "erp": declared("c")})
    async with harness(tmp_path, [], toolsets_file=path, **FAST) as h:
        toolsets = h.server.toolsets
        assert toolsets is not None
        broken = declared("b")
        broken["level"] = "superuser"
        write_toolsets(path, {"crm": broken, "erp": declared("c", "d")})
        assert await toolsets.reload()
        assert [(p.path, p.field) for p in toolsets.problems] == [(str(path), "toolsets.crm.level")]
        assert "is one of none, read, write, execute, admin" in toolsets.problems[0].problem
        assert [n for n in await _names(h) if "." in n] == ["crm.a", "erp.c", "erp.d"]

        path.write_text("toolsets: [unclosed")  # not YAML at all: nothing changes
        assert await toolsets.reload()
        assert toolsets.problems[0].field == "(file)"
        assert [n for n in await _names(h) if "." in n] == ["crm.a", "erp.c", "erp.d"]


async def test_names_that_collide_are_refused_at_load(tmp_path: Path) -> None:
    path = tmp_path / "toolsets.yaml"
    good = yaml.safe_dump(declared("a"))
    path.write_text(
        "toolsets:\n"
        "  calculator: {http: {}, tools: {x: {url: 'http://127.0.0.1:9/'}}}\n"
        "  twice: {http: {}, tools: {x: {url: 'http://127.0.0.1:9/'}}}\n"
        "  twice: {http: {}, tools: {y: {url: 'http://127.0.0.1:9/'}}}\n"
        "  good:\n" + "".join(f"    {line}\n" for line in good.splitlines())
    )
    async with harness(tmp_path, [], toolsets_file=path, **FAST) as h:
        assert h.server.toolsets is not None
        problems = {p.field: p.problem for p in h.server.toolsets.problems}
        assert problems == {
            "toolsets.calculator": "'calculator' is the name of a built-in tool",
            "toolsets.twice": "the toolset is defined 2 times",
        }
        names = await _names(h)
        assert [n for n in names if "." in n] == ["good.a"]
        assert "calculator" in names  # the built-in is untouched


async def test_a_secret_written_in_the_file_is_refused_and_never_logged(tmp_path: Path) -> None:
    secret = "sk-live-" + "Zq3" * 10
    notes = stdio_notes(tmp_path, level="read", mcp={"env": {"NOTES_TOKEN": secret}})
    search = {
        "mcp": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": f"Bearer {secret}"}}
    }
    fine = {"mcp": {"url": "http://127.0.0.1:9/mcp", "headers": {"X-Api-Key": "${NOT_SET_X}"}}}
    path = write_toolsets(
        tmp_path / "toolsets.yaml", {"notes": notes, "search": search, "web": fine}
    )
    with structlog.testing.capture_logs() as logs:
        async with harness(tmp_path, [], toolsets_file=path, **FAST) as h:
            assert h.server.toolsets is not None
            problems = {p.field: p.problem for p in h.server.toolsets.problems}
            names = await _names(h)
    assert set(problems) == {
        "toolsets.notes.mcp.env.NOTES_TOKEN",
        "toolsets.search.mcp.headers.Authorization",
        "toolsets.web.mcp.headers.X-Api-Key",
    }
    assert "secret written out" in problems["toolsets.search.mcp.headers.Authorization"]
    assert problems["toolsets.web.mcp.headers.X-Api-Key"] == (
        "environment variable NOT_SET_X is not set"
    )
    assert not any("." in name for name in names)
    assert secret not in repr(logs)
    assert secret not in repr(problems)
    refused = [e for e in logs if e.get("event") == "toolsets file: refused"]
    assert len(refused) == 3


async def test_a_removed_mcp_toolset_stops_its_server(tmp_path: Path) -> None:
    path = write_toolsets(
        tmp_path / "toolsets.yaml", {"notes": stdio_notes(tmp_path, level="read")}
    )
    async with harness(tmp_path, [], toolsets_file=path, **FAST) as h:
        assert h.server.toolsets is not None
        pid = int((tmp_path / "notes.pid").read_text())
        write_toolsets(path, {})
        assert await h.server.toolsets.reload()
        assert not [n for n in await _names(h) if n.startswith("notes.")]
        for _ in range(100):  # the stdio server was asked to stop: it is gone, bounded wait
            try:
                Path(f"/proc/{pid}").stat()
            except FileNotFoundError:
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the removed toolset's server still runs")


NOTES_TOOLS = {"add_note": {"level": "write"}, "slow": {"level": "write", "timeout_seconds": 10}}


def _pid(folder: Path) -> int:
    return int((folder / "notes.pid").read_text())


async def _slow_started(folder: Path) -> None:
    async def started() -> bool:
        return "slow started" in notes_log(folder)

    await eventually(started)


async def test_an_edit_that_keeps_mcp_keeps_the_server_and_its_calls(tmp_path: Path) -> None:
    notes = stdio_notes(tmp_path, level="read", tools=NOTES_TOOLS)
    path = write_toolsets(tmp_path / "toolsets.yaml", {"notes": notes})
    async with harness(tmp_path, [], toolsets_file=path, **FAST) as h:
        assert h.server.toolsets is not None
        server = _pid(tmp_path)
        call = asyncio.create_task(h.client.call_tool("notes.slow", {"seconds": 1}))
        await _slow_started(tmp_path)
        write_toolsets(path, {"notes": {**notes, "category": "notebook"}})
        assert await h.server.toolsets.reload()
        listed = {t.name: t for t in await h.client.list_tools(toolset="notes")}
        assert listed["notes.search"].category == "notebook"  # listed anew at once
        assert (await call).text == "slept 1.0"  # the call in flight went on
        assert _pid(tmp_path) == server
        assert process_running(server)


async def test_a_changed_mcp_drains_its_calls_before_its_server_stops(tmp_path: Path) -> None:
    notes = stdio_notes(tmp_path, level="read", tools=NOTES_TOOLS)
    path = write_toolsets(tmp_path / "toolsets.yaml", {"notes": notes})
    async with harness(tmp_path, [], toolsets_file=path, **FAST) as h:
        assert h.server.toolsets is not None
        old = _pid(tmp_path)
        call = asyncio.create_task(h.client.call_tool("notes.slow", {"seconds": 2}))
        await _slow_started(tmp_path)
        changed = {**notes, "mcp": {**notes["mcp"], "env": {**notes["mcp"]["env"], "X": "1"}}}
        write_toolsets(path, {"notes": changed})
        assert await h.server.toolsets.reload()  # the new server had its first try
        new = _pid(tmp_path)
        assert new != old
        assert process_running(old)  # still running the call
        assert (await h.client.call_tool("notes.search", {"query": "q"})).text  # the new one
        assert (await call).text == "slept 2.0"

        async def old_gone() -> bool:
            return not process_running(old)

        await eventually(old_gone)
        assert process_running(new)
        records = await h.server.durable.tool_calls.query("default")
        assert sorted((r.tool_name, r.outcome) for r in records) == [
            ("notes.search", "ok"),
            ("notes.slow", "ok"),
        ]


async def test_a_running_task_calls_its_tools_as_it_was_given_them(tmp_path: Path) -> None:
    later = {
        "delay_seconds": 1.5,
        "tool_calls": [{"name": "notes_slow", "arguments": {"seconds": 1}}],
    }
    notes = stdio_notes(tmp_path, level="read", tools=NOTES_TOOLS)
    path = write_toolsets(tmp_path / "toolsets.yaml", {"notes": notes})
    async with harness(tmp_path, [later, {"text": "done"}], toolsets_file=path, **FAST) as h:
        assert h.server.toolsets is not None
        stream = h.client.execute("take your time", mode=FC, tools=["notes.slow"])
        events = [await anext(stream)]
        hurried = {**NOTES_TOOLS, "slow": {"level": "write", "timeout_seconds": 0.5}}
        write_toolsets(path, {"notes": {**notes, "tools": hurried}})
        assert await h.server.toolsets.reload()  # while the model thinks
        events.extend([event async for event in stream])

        assert_well_formed(events)
        [finished] = of_kind(events, "tool_call_finished")
        assert finished.text == "slept 1.0"  # under the 10 s the task was given
        now = await h.client.call_tool("notes.slow", {"seconds": 1})  # a new caller: 0.5 s
        assert now.error.kind == tools_pb2.TOOL_ERROR_KIND_TIMEOUT
