"""What `agentd replay` reads from its command line and prints, against a stand-in for
the client: the request passed on (agent, tools, labels, key), the new task at once,
and with --wait the report once the task ended (where it diverged, or that it did not,
and how its tool calls were answered)."""

from __future__ import annotations

import argparse
from collections.abc import AsyncIterator
from typing import Any

import pytest

from agentd.v1 import events_pb2, replays_pb2, tasks_pb2
from clients import cli
from server.commands.cli import build_parser

ENDED = tasks_pb2.TASK_STATUS_COMPLETED


def parsed(*argv: str) -> argparse.Namespace:
    args = build_parser().parse_args(argv)
    args.address, args.api_key = "127.0.0.1:1", ""
    return args


def _task(status: tasks_pb2.TaskStatus.ValueType, info: replays_pb2.ReplayInfo) -> tasks_pb2.Task:
    task = tasks_pb2.Task(task_id="task_new", status=status, agent="lead@2")
    task.replay.CopyFrom(info)
    return task


class Replays:
    """ReplayTask, StreamTaskEvents and GetTask as the server answers them."""

    def __init__(self, report: replays_pb2.ReplayInfo) -> None:
        self.report = report
        self.asked: list[tuple[tuple[Any, ...], dict[str, Any]]] = []

    async def replay_task(self, *args: Any, **kwargs: Any) -> tasks_pb2.Task:
        self.asked.append((args, kwargs))
        started = replays_pb2.ReplayInfo(source_task_id="task_old", tools=self.report.tools)
        return _task(tasks_pb2.TASK_STATUS_PENDING, started)

    async def stream_task_events(self, task_id: str) -> AsyncIterator[events_pb2.TaskEvent]:
        end = events_pb2.TaskEvent(task_id=task_id)
        end.status_changed.current = ENDED
        yield end

    async def get_task(self, task_id: str) -> tasks_pb2.Task:
        return _task(ENDED, self.report)


async def run(client: Any, *argv: str) -> int:
    args = parsed(*argv)
    return int(await cli._COMMANDS[args.command](client, args))


async def test_replay_passes_the_request_on_and_prints_the_new_task(
    capsys: pytest.CaptureFixture[str],
) -> None:
    client = Replays(replays_pb2.ReplayInfo(source_task_id="task_old"))
    argv = ("replay", "task_old", "--agent", "lead@2", "--tools", "read-only")
    assert await run(client, *argv, "--label", "run=nightly", "--idempotency-key", "k1") == 0
    assert client.asked == [
        (
            ("task_old",),
            {
                "agent": "lead@2",
                "tools": "read_only",
                "labels": {"run": "nightly"},
                "idempotency_key": "k1",
            },
        )
    ]
    assert capsys.readouterr().out == "task_new  pending  replays task_old  agent lead@2\n"


async def test_replay_wait_prints_where_it_diverged(capsys: pytest.CaptureFixture[str]) -> None:
    report = replays_pb2.ReplayInfo(
        source_task_id="task_old",
        diverged=True,
        divergence=replays_pb2.ReplayDivergence(
            kind="tool_call",
            index=1,
            recorded='http_request {"url":"u"}',
            replayed='calculator {"expression":"6*7"}',
        ),
        recorded_calls=2,
        not_run_calls=1,
    )
    assert await run(Replays(report), "replay", "task_old", "--wait") == 0
    assert capsys.readouterr().out.splitlines() == [
        "task_new  completed  replays task_old  agent lead@2",
        "diverged: tool_call at call 1",
        '  recorded: http_request {"url":"u"}',
        '  replayed: calculator {"expression":"6*7"}',
        "tool calls: 2 recorded, 1 not run, 0 live",
    ]


async def test_replay_wait_says_when_it_did_as_the_recording_did(
    capsys: pytest.CaptureFixture[str],
) -> None:
    report = replays_pb2.ReplayInfo(source_task_id="task_old", recorded_calls=3)
    assert await run(Replays(report), "replay", "task_old", "--wait") == 0
    assert capsys.readouterr().out.splitlines()[1:] == [
        "did as the recording did",
        "tool calls: 3 recorded, 0 not run, 0 live",
    ]
