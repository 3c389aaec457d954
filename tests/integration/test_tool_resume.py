"""Resuming a task at the tool call that failed, through the real server, a real MCP server
and the fake model: an error code the toolsets file declares resumable makes the task wait
(INPUT_REQUIRED, TOOL_RESUMABLE); ResumeTask runs that call again, and only that call;
after the window the task is FAILED and ResumeTask answers FAILED_PRECONDITION."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agent.llm.fakes.server import FakeOpenAIServer
from agentd.v1 import events_pb2, tasks_pb2, tools_pb2
from agentd_client import errors as client_errors
from agentd_client.client import AgentClient
from tests.helpers import server_process
from tests.integration.harness import assert_well_formed, final, harness, kinds, of_kind
from tests.integration.mcp_notes_server import OUT_OF_CREDITS
from tests.integration.test_takeover import kill, replica_env
from tests.integration.toolsets import FAST, notes_log, stdio_notes, write_toolsets

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
TOOLS = ["notes.search", "notes.charge"]


def _settings(tmp_path: Path, **more: Any) -> dict[str, Any]:
    notes = stdio_notes(
        tmp_path,
        level="write",
        tools={"charge": {"resumable_errors": [OUT_OF_CREDITS]}},
    )
    path = write_toolsets(tmp_path / "toolsets.yaml", {"notes": notes})
    return {"toolsets_file": path, **FAST, **more}


def _call(tool: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": tool, "arguments": arguments}]}


REPLIES = [
    _call("notes_search", query="invoices"),
    _call("notes_charge", amount=5),
    {"text": "Found the invoices and charged 5."},
]


async def _until(
    stream: AsyncIterator[events_pb2.TaskEvent], kind: str, seen: list[events_pb2.TaskEvent]
) -> events_pb2.TaskEvent:
    """The next event of `kind` (every event read is kept in `seen`), within 20 s."""
    async with asyncio.timeout(20):
        async for event in stream:
            seen.append(event)
            if event.WhichOneof("payload") == kind:
                return event
    raise AssertionError(f"the stream ended before a {kind} event: {kinds(seen)}")


async def _rest(
    stream: AsyncIterator[events_pb2.TaskEvent], seen: list[events_pb2.TaskEvent]
) -> None:
    async with asyncio.timeout(20):
        seen.extend([event async for event in stream])


async def _start(client: AgentClient) -> tuple[str, AsyncIterator[events_pb2.TaskEvent]]:
    stream = aiter(client.execute("find the invoices, then pay 5", mode=FC, tools=TOOLS))
    first = await anext(stream)
    return first.task_id, stream


async def test_resume_runs_only_the_failed_call_again_and_the_task_completes(
    tmp_path: Path,
) -> None:
    async with harness(tmp_path, REPLIES, **_settings(tmp_path)) as h:
        task_id, stream = await _start(h.client)
        seen: list[events_pb2.TaskEvent] = []
        waiting = (await _until(stream, "tool_resumable", seen)).tool_resumable
        assert waiting.tool_name == "notes.charge"
        assert "out of credits" in waiting.message
        window = (
            waiting.resume_by.ToDatetime().timestamp() - seen[-1].timestamp.ToDatetime().timestamp()
        )
        assert 890 < window <= 901  # AGENTD_RESUME_WINDOW_SECONDS' default
        task = await h.client.get_task(task_id)
        assert task.status == tasks_pb2.TASK_STATUS_INPUT_REQUIRED
        status = [e.status_changed for e in seen if e.WhichOneof("payload") == "status_changed"]
        assert status[-1].detail.startswith("TOOL_RESUMABLE: notes.charge failed")
        failed = of_kind(seen, "tool_call_finished")[-1]
        assert failed.error.kind == tools_pb2.TOOL_ERROR_KIND_RESUMABLE

        (tmp_path / "credits").write_text("100")  # the person fixes the cause
        resumed = await h.client.resume_task(task_id, "bought credits")
        assert resumed.task_id == task_id
        await _rest(stream, seen)

        events = [e async for e in h.client.stream_task_events(task_id)]
        assert_well_formed(events)
        assert final(events).text == "Found the invoices and charged 5."
        # The search ran once; the charge twice (refused, then after the resume); the model
        # was not asked again for the call: three requests in all.
        assert notes_log(tmp_path) == ["search invoices", "charge 5 refused", "charge 5 ok"]
        assert len(h.llm.requests) == 3
        started = [s.tool_name for s in of_kind(events, "tool_call_started")]
        assert started == ["notes.search", "notes.charge", "notes.charge"]
        running = [
            e.status_changed.detail
            for e in events
            if e.WhichOneof("payload") == "status_changed"
            and e.status_changed.current == tasks_pb2.TASK_STATUS_RUNNING
        ]
        assert "resumed by anonymous" in running
        h.llm.assert_complete()


async def test_after_the_window_the_task_fails_and_resume_is_refused(tmp_path: Path) -> None:
    settings = _settings(tmp_path, resume_window_seconds=1.0)
    async with harness(tmp_path, REPLIES[:2], **settings) as h:
        events = await h.run("find the invoices, then pay 5", mode=FC, tools=TOOLS)
        assert_well_formed(events, tasks_pb2.TASK_STATUS_FAILED)
        assert "tool_resumable" in kinds(events)
        [error] = of_kind(events, "error")
        assert error.reason == "TOOL_RESUMABLE"
        assert "not resumed within its resume window of 1 s" in error.message
        task_id = events[0].task_id
        with pytest.raises(client_errors.TaskNotResumableError) as refused:
            await h.client.resume_task(task_id)
        assert refused.value.code.name == "FAILED_PRECONDITION"
        assert "resume window closed" in refused.value.message
        assert notes_log(tmp_path) == ["search invoices", "charge 5 refused"]


async def test_resume_is_refused_for_a_task_that_does_not_wait(tmp_path: Path) -> None:
    async with harness(tmp_path, [{"text": "hi", "delay_seconds": 1.0}]) as h:
        task = await h.client.start_task("say hi", mode=FC)
        with pytest.raises(client_errors.TaskNotResumableError, match="no tool call"):
            await h.client.resume_task(task.task_id)
        with pytest.raises(client_errors.TaskNotFoundError):
            await h.client.resume_task("task_000000000000000000000000")


@pytest.mark.redis
@pytest.mark.postgres
async def test_after_kill_9_the_process_taking_over_waits_and_resumes_the_call(
    tmp_path: Path, prefix: str, database: str
) -> None:
    """A process waits on a resumable failure and is killed; the restarted process takes
    the task over (or wakes it, parked), and ResumeTask (sent while no process ran it)
    runs only that call."""
    replies = [_call("notes_charge", amount=5), {"text": "Charged 5."}]
    toolsets = _settings(tmp_path)["toolsets_file"]
    async with FakeOpenAIServer(replies) as llm:
        env = replica_env(llm.base_url, prefix, database, AGENTD_TOOLSETS_FILE=str(toolsets))
        with server_process(tmp_path / "a", env) as first:
            async with AgentClient(first.address) as a:
                stream = aiter(a.execute("pay 5", mode=FC, tools=["notes.charge"]))
                head: list[events_pb2.TaskEvent] = []
                await _until(stream, "tool_resumable", head)
                kill(first)
        task_id = head[0].task_id
        (tmp_path / "credits").write_text("100")
        with server_process(tmp_path / "a2", env) as restarted:
            async with AgentClient(restarted.address) as again:
                await again.resume_task(task_id, "bought credits")  # before or after it claims
                async with asyncio.timeout(30):
                    rest = [e async for e in again.stream_task_events(task_id, head[-1].sequence)]
    every = head + rest
    assert_well_formed(every)
    # Taken over (`resumed`) when the kill came before the task parked; else woken by
    # ResumeTask from its park: either way once, on the restarted process.
    assert len(of_kind(every, "resumed")) <= 1
    assert final(every).text == "Charged 5."
    assert notes_log(tmp_path) == ["charge 5 refused", "charge 5 ok"]
    assert len(llm.requests) == 2  # the model was not asked for the call again
    llm.assert_complete()
