"""Tool progress through the real server: an MCP server's progress notifications become
`tool_progress` events (rate-limited, coalesced), and progress keeps a tool alive past a
timeout that ends a silent one, where the toolsets file says so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentd.v1 import tasks_pb2, tools_pb2
from tests.integration.harness import assert_well_formed, final, harness, kinds, of_kind
from tests.integration.test_toolsets_http import api_server
from tests.integration.toolsets import FAST, stdio_notes, write_toolsets

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING


def _settings(tmp_path: Path, tools: dict[str, Any], **more: Any) -> dict[str, Any]:
    toolsets = {"notes": stdio_notes(tmp_path, level="read", tools=tools)}
    return {"toolsets_file": write_toolsets(tmp_path / "toolsets.yaml", toolsets), **FAST, **more}


def _call(tool: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": tool, "arguments": arguments}]}


async def test_mcp_progress_notifications_stream_as_tool_progress_events(
    tmp_path: Path,
) -> None:
    replies = [_call("notes_steps", count=4, seconds=0.05), {"text": "All four steps done."}]
    settings = _settings(tmp_path, {}, tool_progress_ms=0)  # every report is an event
    async with harness(tmp_path, replies, **settings) as h:
        events = await h.run("work through the steps", mode=FC, tools=["notes.steps"])
        assert_well_formed(events)
        [started] = of_kind(events, "tool_call_started")
        progress = of_kind(events, "tool_progress")
        assert [(p.progress, p.total, p.message) for p in progress] == [
            (float(n), 4.0, f"step {n} of 4") for n in (1, 2, 3, 4)
        ]
        assert {p.call_id for p in progress} == {started.call_id}
        assert {p.tool_name for p in progress} == {"notes.steps"}
        order = kinds(events)
        first, last = (
            order.index("tool_progress"),
            len(order) - 1 - order[::-1].index("tool_progress"),
        )
        assert order.index("tool_call_started") < first
        assert last < order.index("tool_call_finished")
        assert final(events).text == "All four steps done."


async def test_progress_is_rate_limited_and_the_latest_report_wins(tmp_path: Path) -> None:
    replies = [_call("notes_steps", count=20, seconds=0.02), {"text": "done"}]
    settings = _settings(tmp_path, {}, tool_progress_ms=300)
    async with harness(tmp_path, replies, **settings) as h:
        events = await h.run("work", mode=FC, tools=["notes.steps"])
        assert_well_formed(events)
        progress = of_kind(events, "tool_progress")
        # About 0.4 s of work, one event per 0.3 s at most: far fewer events than reports.
        assert 1 <= len(progress) <= 4, [p.progress for p in progress]
        assert sum(p.reports for p in progress) == 20  # every report is accounted for
        assert progress[-1].progress == 20.0  # the last report is never lost
        assert [p.progress for p in progress] == sorted(p.progress for p in progress)


async def test_progress_keeps_a_long_tool_alive_past_the_timeout_of_a_silent_one(
    tmp_path: Path,
) -> None:
    """Both tools run for about 1.6 s under a 0.6 s timeout; the one that reports progress
    every 0.2 s (and whose file says progress keeps it alive) finishes, the silent one
    times out."""
    tools = {
        "steps": {"timeout_seconds": 0.6, "progress_keeps_alive": True},
        "slow": {"timeout_seconds": 0.6, "progress_keeps_alive": True},
    }
    replies = [
        _call("notes_steps", count=8, seconds=0.2),
        _call("notes_slow", seconds=1.6),
        {"text": "The steps finished; the slow one timed out."},
    ]
    async with harness(tmp_path, replies, **_settings(tmp_path, tools)) as h:
        listed = {t.name: t for t in await h.client.list_tools(toolset="notes")}
        assert listed["notes.steps"].progress_keeps_alive
        assert listed["notes.steps"].timeout_seconds == 0.6
        events = await h.run(
            "steps, then slow", mode=FC, tools=["notes.steps", "notes.slow"], max_iterations=5
        )
        assert_well_formed(events)
        steps, slow = of_kind(events, "tool_call_finished")
        assert not steps.HasField("error"), steps.error.message
        assert steps.text == "8 steps done"
        assert steps.duration.ToTimedelta().total_seconds() > 1.2
        assert slow.error.kind == tools_pb2.TOOL_ERROR_KIND_TIMEOUT
        assert "without reporting progress" in slow.error.message


async def test_without_the_setting_progress_does_not_extend_the_timeout(tmp_path: Path) -> None:
    tools = {"steps": {"timeout_seconds": 0.5}}
    replies = [_call("notes_steps", count=8, seconds=0.2), {"text": "It timed out."}]
    async with harness(tmp_path, replies, **_settings(tmp_path, tools)) as h:
        events = await h.run("steps", mode=FC, tools=["notes.steps"])
        assert_well_formed(events)
        [finished] = of_kind(events, "tool_call_finished")
        assert finished.error.kind == tools_pb2.TOOL_ERROR_KIND_TIMEOUT
        assert "did not finish within 0.5 s" in finished.error.message
        assert of_kind(events, "tool_progress")  # it reported, but that did not count


@pytest.mark.parametrize("keeps_alive", [True, False])
async def test_a_declared_http_tool_reports_progress_in_json_lines(
    tmp_path: Path, keeps_alive: bool
) -> None:
    """The API sends three progress lines 0.3 s apart, then its answer: under a 0.5 s
    timeout the call finishes when progress keeps it alive, and times out otherwise."""
    tool = {"url": "${API_BASE}/progress", "timeout_seconds": 0.5}
    if keeps_alive:
        tool["progress_keeps_alive"] = True
    replies = [_call("api_parts"), {"text": "done"}]
    with api_server() as (url, _):
        api = {"http": {"allowed_networks": ["127.0.0.1/32"]}, "level": "read"}
        toolsets = {"api": {**api, "tools": {"parts": tool}}}
        settings = {
            "toolsets_file": write_toolsets(tmp_path / "toolsets.yaml", toolsets),
            "tool_progress_ms": 0,
            **FAST,
        }
        with pytest.MonkeyPatch.context() as env:
            env.setenv("API_BASE", url)
            async with harness(tmp_path, replies, **settings) as h:
                events = await h.run("count the parts", mode=FC, tools=["api.parts"])
    assert_well_formed(events)
    [finished] = of_kind(events, "tool_call_finished")
    reported = [(p.progress, p.message) for p in of_kind(events, "tool_progress")]
    if keeps_alive:
        assert not finished.HasField("error"), finished.error.message
        assert json.loads(finished.text) == {"parts": 3}  # the progress lines left out
        assert reported == [(1.0, "part 1"), (2.0, "part 2"), (3.0, "part 3")]
    else:
        assert finished.error.kind == tools_pb2.TOOL_ERROR_KIND_TIMEOUT
        assert reported[:1] == [(1.0, "part 1")]
