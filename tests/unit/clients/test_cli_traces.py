"""What `agentd trace TASK_ID` prints: the task (its agent and input), then each entry of
its trace on a line (model calls with role, model, tokens, time and the reply's first
line; tool calls with short arguments and result; verdicts; decisions), every page read,
each child's trace indented under the call that started it (a child no call names at
the end), `--depth` levels of children, and a child whose trace is gone said so. The
command runs as parsed from its command line against a stand-in for the client."""

from __future__ import annotations

import argparse
import json
from typing import Any

import grpc
import pytest
from google.protobuf import struct_pb2

from agentd.v1 import tasks_pb2
from agentd.v1 import traces_pb2 as tpb
from agentd_client.errors import TraceNotFoundError
from clients import cli
from server.commands.cli import build_parser


async def run(client: Any, *argv: str) -> int:
    args = parsed(*argv)
    return await cli._COMMANDS[args.command](client, args)


def parsed(*argv: str) -> argparse.Namespace:
    args = build_parser().parse_args(argv)
    args.address, args.api_key = "127.0.0.1:1", ""
    return args


def model(reply: str, calls: tuple[str, ...] = ()) -> tpb.TraceEntry:
    usage = tasks_pb2.TokenUsage(prompt_tokens=120, completion_tokens=30, total_tokens=150)
    return tpb.TraceEntry(
        kind=tpb.TRACE_KIND_MODEL_CALL,
        model_call=tpb.ModelCallTrace(
            role="executor",
            model="gpt-x",
            reply_text=reply,
            reply_tool_calls=[tpb.TraceToolRequest(name=c) for c in calls],
            usage=usage,
            latency_seconds=0.25,
        ),
    )


def tool(name: str, result: str, child: str = "", **arguments: Any) -> tpb.TraceEntry:
    args = struct_pb2.Struct()
    args.update(arguments)
    return tpb.TraceEntry(
        kind=tpb.TRACE_KIND_TOOL_CALL,
        tool_call=tpb.ToolCallTrace(
            tool=name,
            arguments=args,
            result_text=result,
            duration_seconds=0.002,
            source=tpb.TRACE_TOOL_SOURCE_LIVE,
            child_task_id=child,
        ),
    )


class Traces:
    """A stand-in client: each task's trace in pages of two entries."""

    def __init__(self, traces: dict[str, tuple[list[tpb.TraceEntry], list[str]]]) -> None:
        self.traces = traces
        self.asked: list[tuple[str, str]] = []

    async def get_task_trace(
        self, task_id: str, *, page_size: int = 0, page_token: str = ""
    ) -> tpb.GetTaskTraceResponse:
        self.asked.append((task_id, page_token))
        if task_id not in self.traces:
            raise TraceNotFoundError(grpc.StatusCode.NOT_FOUND, f"no trace of {task_id!r}")
        entries, children = self.traces[task_id]
        start = int(page_token or 0)
        more = start + 2 < len(entries)
        return tpb.GetTaskTraceResponse(
            task_id=task_id,
            entries=entries[start : start + 2],
            next_page_token=str(start + 2) if more else "",
            child_task_ids=children,
            agent="lead@2",
            task=f"the goal of {task_id}",
        )


TREE = {
    "root": (
        [
            model("", ("delegate_to_support",)),
            tool("delegate_to_support", "the child's answer", child="kid", task="look"),
            model("Done: all found.\nSecond line."),
            tpb.TraceEntry(
                kind=tpb.TRACE_KIND_CRITIC_VERDICT,
                critic=tpb.CriticTrace(subject="answer", accepted=True, feedback="complete"),
            ),
        ],
        ["kid", "stray"],
    ),
    "kid": (
        [
            tool("read_file", "region=eu api_key=[REDACTED]", path="config.txt"),
            tpb.TraceEntry(
                kind=tpb.TRACE_KIND_DECISION,
                decision=tpb.DecisionTrace(
                    kind="approval", tool="send", decision="approve", decided_by="bob"
                ),
            ),
        ],
        [],
    ),
}


async def test_a_task_and_its_children_print_as_an_indented_tree(
    capsys: pytest.CaptureFixture[str],
) -> None:
    client = Traces(TREE)

    assert await run(client, "trace", "root") == 0

    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "task root  lead@2  'the goal of root'"
    assert lines[1].startswith("  model executor gpt-x  150 tokens (120 prompt, 30 completion)")
    assert "250 ms" in lines[1]
    assert lines[1].endswith("calls delegate_to_support")
    assert lines[2].startswith('  tool delegate_to_support({"task": "look"}) -> the child')
    assert lines[3] == "    task kid  lead@2  'the goal of kid'"  # under the call
    assert lines[4].startswith('      tool read_file({"path": "config.txt"}) -> region=eu')
    assert "[REDACTED]" in lines[4]
    assert lines[5] == "      approval send: approve by bob"
    assert "Done: all found." in lines[6]
    assert "Second line" not in lines[6]  # the reply's first line
    assert lines[7] == "  critic on answer: accepted  complete"
    assert lines[8] == "    task stray: no trace kept"  # a child no call names: at the end
    assert [t for t, token in client.asked] == ["root", "root", "kid", "stray"]


async def test_depth_zero_prints_the_task_alone_and_json_prints_its_pages(
    capsys: pytest.CaptureFixture[str],
) -> None:
    await run(Traces(TREE), "trace", "root", "--depth", "0")
    alone = capsys.readouterr().out
    assert "task kid" not in alone
    assert alone.count("\n") == 5

    await run(Traces(TREE), "--json", "trace", "root", "--depth", "0")
    pages = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [len(p["entries"]) for p in pages] == [2, 2]
    assert pages[0]["next_page_token"] == "2"


async def test_a_task_without_a_trace_is_the_commands_error() -> None:
    with pytest.raises(TraceNotFoundError):
        await run(Traces(TREE), "trace", "gone")
