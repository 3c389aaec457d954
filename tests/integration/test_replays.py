"""Replays through the real server, its stores (SQLite, and PostgreSQL), the real client
and the fake model (the acceptance of ReplayTask): 20 recorded tasks, each of which wrote
a file (`write_file`), POSTed to an HTTP server (`http_request`, a server of the test's
own on 127.0.0.1 whose every request is logged) and delegated to a helper (a child task),
are replayed against a new version of their agent. Nothing runs live: the HTTP server's
log shows no request after the recordings, the workspace holds what the recordings wrote
and nothing else, no replay starts a child; and each replay reports where it diverged
(another tool, other arguments, another answer) or that it did not."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agentd.v1 import agents_pb2, tasks_pb2, traces_pb2
from agentd_client import errors as client_errors
from tests.helpers import fresh_postgres_database, watched_http_server
from tests.integration.harness import Harness, assert_well_formed, final, harness

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
TASKS = 20
LEAD_V1 = "You are the lead, version one."
LEAD_V2 = "You are the lead, version two."
HELPER = "You are the helper."
USAGE = {"prompt_tokens": 10, "completion_tokens": 5}


def _calls(n: int, url: str, *, content: str = "", other_tool: bool = False) -> list[Any]:
    """The calls a lead makes for job `n`: write a file, POST, delegate to the helper."""
    write = {"path": f"job-{n:02}.txt", "content": content or f"content of job {n}"}
    post = {"url": f"{url}/record", "method": "POST", "body": f"job {n}"}
    fetch = ("http_request", post) if not other_tool else ("calculator", {"expression": "6*7"})
    return [
        {"name": "write_file", "arguments": write},
        {"name": fetch[0], "arguments": fetch[1]},
        {"name": "agent_helper", "arguments": {"task": f"help with job {n}"}},
    ]


def _script(url: str) -> list[dict[str, Any]]:
    """The recordings' conversations (the lead's two turns per job, the helper's answer),
    then the replays' as version two plays them: job n % 4 == 0 the same, 1 another file
    content, 2 another answer, 3 another tool in the place of http_request."""
    replies: list[dict[str, Any]] = [
        {"match": HELPER, "text": "helped", "repeat": -1, "usage": USAGE},
    ]
    for n in range(TASKS):
        replies.append({"match": LEAD_V1, "tool_calls": _calls(n, url), "usage": USAGE})
        replies.append({"match": LEAD_V1, "text": f"done job {n}", "usage": USAGE})
    for n in range(TASKS):
        variant = n % 4
        calls = _calls(
            n, url, content="other content" if variant == 1 else "", other_tool=variant == 3
        )
        answer = f"done job {n}" if variant != 2 else f"job {n} finished differently"
        replies.append({"match": LEAD_V2, "tool_calls": calls, "usage": USAGE})
        replies.append({"match": LEAD_V2, "text": answer, "usage": USAGE})
    return replies


def _lead(instructions: str) -> agents_pb2.Agent:
    return agents_pb2.Agent(
        id="lead",
        instructions=instructions,
        models={"default": "fake-model"},
        mode=FC,
        tools=["write_file", "http_request", "calculator"],
        delegates=["helper"],
    )


async def _record(h: Harness, url: str, seen: list[str]) -> list[str]:
    recorded: list[str] = []
    for n in range(TASKS):
        events = await h.run(f"job {n}", agent="lead", mode=FC)
        assert_well_formed(events)
        assert final(events).text == f"done job {n}"
        recorded.append(events[0].task_id)
    assert seen.count("POST /record") == TASKS  # the recordings ran live
    return recorded


async def _replay(h: Harness, task_id: str) -> tasks_pb2.Task:
    started = await h.client.replay_task(task_id, agent="lead@2", labels={"run": "accept"})
    assert started.replay.source_task_id == task_id
    assert started.labels["agentd.replay_of"] == task_id
    events = [e async for e in h.client.stream_task_events(started.task_id)]
    assert_well_formed(events)
    return await h.client.get_task(started.task_id)


def _check_report(n: int, replay: tasks_pb2.Task) -> None:
    report, variant = replay.replay, n % 4
    assert report.tools == 1  # REPLAY_TOOLS_RECORDED
    assert report.live_calls == 0
    found = report.divergence
    if variant == 0:
        assert not report.diverged
        assert (report.recorded_calls, report.not_run_calls) == (3, 0)
    elif variant == 1:  # other arguments: its write is not run
        assert report.diverged
        assert (found.kind, found.index) == ("tool_call", 2)  # by tool within a reply
        assert found.recorded.startswith("write_file ")
        assert f"content of job {n}" in found.recorded
        assert "other content" in found.replayed
        assert (report.recorded_calls, report.not_run_calls) == (2, 1)
    elif variant == 2:  # the same calls, another answer
        assert (found.kind, found.recorded) == ("answer", f"done job {n}")
        assert found.replayed == f"job {n} finished differently"
        assert (report.recorded_calls, report.not_run_calls) == (3, 0)
    else:  # another tool where the recording had http_request
        assert (found.kind, found.index) == ("tool_call", 1)
        assert found.recorded.startswith("http_request ")
        assert found.replayed.startswith("calculator ")
        assert (report.recorded_calls, report.not_run_calls) == (2, 1)


def _files(workspace: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(workspace.rglob("*")) if p.is_file()}


@pytest.fixture(params=["sqlite", "postgresql"])
async def database(request: pytest.FixtureRequest) -> AsyncIterator[dict[str, str]]:
    """Where the server keeps its tasks and traces: its SQLite file, or a new database on
    the machine's PostgreSQL."""
    if request.param == "sqlite":
        yield {}
        return
    async with fresh_postgres_database() as url:
        yield {"database_url": url}


async def test_recorded_tasks_replay_against_a_new_version_with_nothing_run_live(
    tmp_path: Path, database: dict[str, str]
) -> None:
    with watched_http_server() as (url, seen):
        settings = {
            "http_allowed_networks": ["127.0.0.1/32"],
            "anonymous_roles": ["admin"],
            **database,
        }
        async with harness(tmp_path, _script(url), **settings) as h:
            await h.client.create_agent(
                agents_pb2.Agent(id="helper", instructions=HELPER, mode=FC, description="helps")
            )
            await h.client.create_agent(_lead(LEAD_V1))
            recorded = await _record(h, url, seen)
            written = _files(tmp_path / "workspace")
            assert len(written) == TASKS
            before = (len(seen), len((await h.client.list_tasks(agent="helper")).tasks))
            assert before[1] == TASKS  # one child per recording
            assert (await h.client.update_agent(_lead(LEAD_V2))).version == 2

            replays = [await _replay(h, task_id) for task_id in recorded]

            assert len(seen) == before[0]  # the HTTP server saw nothing more
            assert _files(tmp_path / "workspace") == written  # nothing written, nothing changed
            helpers = await h.client.list_tasks(agent="helper")
            assert len(helpers.tasks) == before[1]  # no child started
            for n, replay in enumerate(replays):
                assert replay.status == tasks_pb2.TASK_STATUS_COMPLETED
                assert replay.agent == "lead@2"
                assert not replay.children
                _check_report(n, replay)
            traced = await h.client.get_task_trace(replays[1].task_id)
            sources = {
                e.tool_call.tool: e.tool_call.source
                for e in traced.entries
                if e.WhichOneof("detail") == "tool_call"
            }
            assert sources == {  # each call of the replay traced with where it came from
                "agent.helper": traces_pb2.TRACE_TOOL_SOURCE_RECORDED,
                "http_request": traces_pb2.TRACE_TOOL_SOURCE_RECORDED,
                "write_file": traces_pb2.TRACE_TOOL_SOURCE_NOT_RUN,
            }


async def test_replaying_an_unknown_task_is_not_found(tmp_path: Path) -> None:
    async with harness(tmp_path, [{"text": "hi", "repeat": -1}]) as h:
        with pytest.raises(client_errors.TaskNotFoundError):
            await h.client.replay_task("task_" + "0" * 24)
