"""What `agentd inbox` reads from its command line and prints, run against a stand-in for
the client: the actions as a table (what each asks, cut to fit), its filters passed on,
one page with the next token on stderr or every page with --all, JSON lines; each verb
answering through the task RPCs (approve and deny with ApproveToolCall, answer with
ProvideInput, resume with ResumeTask); and `inbox history`, the inbox's history
(ListActionHistory) as aligned lines, its filters and pages passed on."""

from __future__ import annotations

import argparse
import io
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from agentd.v1 import inbox_pb2, tasks_pb2
from agentd_client.requests import to_struct
from clients import cli, inbox_cli
from server.commands.cli import build_parser
from server.convert.tasks import to_timestamp

NOW = datetime(2026, 12, 8, 9, 0, tzinfo=UTC)


def parsed(*argv: str) -> argparse.Namespace:
    args = build_parser().parse_args(argv)
    args.address, args.api_key = "127.0.0.1:1", ""
    return args


async def run(client: Any, *argv: str) -> int:
    args = parsed(*argv)
    return await cli._COMMANDS[args.command](client, args)


def approval(n: int, **more: Any) -> inbox_pb2.PendingAction:
    action = inbox_pb2.PendingAction(
        kind=inbox_pb2.PENDING_ACTION_KIND_APPROVAL,
        task_id=f"task_{n}",
        root_task_id=f"task_{n}",
        request_id=f"call_{n}",
        tool_name="files.write",
        agent="helper@2",
        asked_by="alice",
        roles=["finance"],
        created_at=to_timestamp(NOW - timedelta(seconds=250)),
        deadline=to_timestamp(NOW + timedelta(minutes=10)),
        **more,
    )
    action.arguments.CopyFrom(to_struct({"path": "/srv/report.txt", "token": "[redacted]"}))
    return action


class Inbox:
    """ListPendingActions in pages of two, and the answering RPCs, as the server answers
    them; every request kept."""

    def __init__(self, actions: list[inbox_pb2.PendingAction]) -> None:
        self.actions = actions
        self.calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    async def list_pending_actions(self, **request: Any) -> inbox_pb2.ListPendingActionsResponse:
        self.calls.append(("list", (), request))
        start = int(request["page_token"] or 0)
        following = str(start + 2) if start + 2 < len(self.actions) else ""
        return inbox_pb2.ListPendingActionsResponse(
            actions=self.actions[start : start + 2], next_page_token=following
        )

    def _task(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tasks_pb2.Task:
        self.calls.append((name, args, kwargs))
        return tasks_pb2.Task(task_id=args[0], status=tasks_pb2.TASK_STATUS_RUNNING)

    async def approve_tool_call(self, *args: Any, **kwargs: Any) -> tasks_pb2.Task:
        return self._task("approve_tool_call", args, kwargs)

    async def provide_input(self, *args: Any, **kwargs: Any) -> tasks_pb2.Task:
        return self._task("provide_input", args, kwargs)

    async def resume_task(self, *args: Any, **kwargs: Any) -> tasks_pb2.Task:
        return self._task("resume_task", args, kwargs)

    async def list_action_history(self, **request: Any) -> inbox_pb2.ListActionHistoryResponse:
        """The history in pages of two: an approval opened, then answered or timed out,
        each action in turn."""
        self.calls.append(("history", (), request))
        numbers = [int(action.task_id.removeprefix("task_")) for action in self.actions]
        entries = [step for n in numbers for step in history(n)]
        start = int(request["page_token"] or 0)
        following = str(start + 2) if start + 2 < len(entries) else ""
        return inbox_pb2.ListActionHistoryResponse(
            entries=entries[start : start + 2], next_page_token=following
        )


def history(n: int) -> list[inbox_pb2.ActionHistoryEntry]:
    """What became of `approval(n)`: opened, then answered (even n) or timed out (odd)."""
    common: dict[str, Any] = {
        "action_kind": inbox_pb2.PENDING_ACTION_KIND_APPROVAL,
        "task_id": f"task_{n}",
        "root_task_id": f"task_{n}",
        "request_id": f"call_{n}",
        "tool_name": "files.write",
        "agent": "helper@2",
        "roles": ["finance", "ops"],
        "deadline": to_timestamp(NOW + timedelta(minutes=10)),
    }
    opened = inbox_pb2.ActionHistoryEntry(
        kind=inbox_pb2.ACTION_HISTORY_KIND_OPENED, time=to_timestamp(NOW), **common
    )
    ended = inbox_pb2.ActionHistoryEntry(
        kind=inbox_pb2.ACTION_HISTORY_KIND_ANSWERED
        if n % 2 == 0
        else inbox_pb2.ACTION_HISTORY_KIND_TIMED_OUT,
        time=to_timestamp(NOW + timedelta(minutes=n % 2 * 10, seconds=5)),
        actor="fay" if n % 2 == 0 else "deadline",
        outcome="approved" if n % 2 == 0 else "denied",
        **common,
    )
    return [opened, ended]


def test_the_table_says_what_each_action_asks() -> None:
    question = inbox_pb2.PendingAction(
        kind=inbox_pb2.PENDING_ACTION_KIND_QUESTION,
        task_id="task_2",
        root_task_id="task_1",
        request_id="question:call_3",
        asked_by="bob",
        text="Which branch: main or release?",
        created_at=to_timestamp(NOW - timedelta(seconds=2.5)),
        deadline=to_timestamp(NOW - timedelta(seconds=1)),
    )
    resume = inbox_pb2.PendingAction(
        kind=inbox_pb2.PENDING_ACTION_KIND_RESUME,
        task_id="task_3",
        root_task_id="task_3",
        request_id="resume:0",
        tool_name="crm.update",
        text="HTTP 503 " + "busy " * 40,
        created_at=to_timestamp(NOW),
    )
    lines = inbox_cli.action_rows([approval(1), question, resume], NOW, 200)
    cells = [line.split() for line in lines]
    assert cells[0][:4] == ["kind", "task", "root", "request"]
    assert cells[1][:6] == ["approval", "task_1", "-", "call_1", "helper@2", "alice"]
    assert "4 min 10 s" in lines[1]
    assert "in 10 min 0 s" in lines[1]
    assert lines[1].endswith('files.write({"path": "/srv/report.txt", "token": "[redacted]"})')
    assert cells[2][:6] == ["question", "task_2", "task_1", "question:call_3", "-", "bob"]
    assert "2.5 s" in lines[2]
    assert "passed" in lines[2]
    assert lines[2].endswith("Which branch: main or release?")
    assert cells[3][:3] == ["resume", "task_3", "-"]
    assert "crm.update: HTTP 503 busy" in lines[3]
    assert lines[3].endswith("…")
    assert all(len(line) <= 200 for line in lines)


async def test_one_page_with_the_next_token_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    client = Inbox([approval(n) for n in range(5)])
    assert (
        await run(client, "inbox", "--kind", "approval", "--agent", "helper", "--limit", "2") == 0
    )
    said = capsys.readouterr()
    assert [line.split()[1] for line in said.out.splitlines()[1:]] == ["task_0", "task_1"]
    assert said.err == "more: agentd inbox --page-token 2 (or --all)\n"
    [(_, _, request)] = client.calls
    assert request == {
        "kinds": ["approval"],
        "agent": "helper",
        "root_task_id": "",
        "page_size": 2,
        "page_token": "",
    }


async def test_every_page_as_json_lines(capsys: pytest.CaptureFixture[str]) -> None:
    client = Inbox([approval(n) for n in range(5)])
    assert await run(client, "inbox", "--all", "--json", "--root", "task_0") == 0
    said = capsys.readouterr()
    printed = [json.loads(line) for line in said.out.splitlines()]
    assert [p["task_id"] for p in printed] == [f"task_{n}" for n in range(5)]
    assert printed[0]["arguments"] == {"path": "/srv/report.txt", "token": "[redacted]"}
    assert said.err == ""
    assert [c[2]["page_token"] for c in client.calls] == ["", "2", "4"]
    assert {c[2]["root_task_id"] for c in client.calls} == {"task_0"}


async def test_an_empty_inbox_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert await run(Inbox([]), "inbox") == 0
    assert capsys.readouterr().out == "no actions wait for you\n"


async def test_each_verb_answers_through_its_rpc(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    client = Inbox([])
    await run(client, "inbox", "approve", "task_1", "call_1", "--comment", "ok")
    await run(client, "inbox", "deny", "task_1", "budget:b1")
    await run(client, "inbox", "answer", "task_2", "question:call_3", "main")
    monkeypatch.setattr("sys.stdin", io.StringIO("from stdin"))
    await run(client, "inbox", "answer", "task_2", "question:call_4", "-")
    await run(client, "inbox", "resume", "task_3", "--comment", "fixed")
    assert [(name, args, kwargs) for name, args, kwargs in client.calls] == [
        ("approve_tool_call", ("task_1", "call_1", "approve"), {"comment": "ok"}),
        ("approve_tool_call", ("task_1", "budget:b1", "reject"), {"comment": ""}),
        ("provide_input", ("task_2", "question:call_3", "main"), {}),
        ("provide_input", ("task_2", "question:call_4", "from stdin"), {}),
        ("resume_task", ("task_3", "fixed"), {}),
    ]
    assert capsys.readouterr().out.splitlines() == [
        "approved call_1; task task_1 is running",
        "denied budget:b1; task task_1 is running",
        "answered question:call_3; task task_2 is running",
        "answered question:call_4; task task_2 is running",
        "resumed; task task_3 is running",
    ]


async def test_the_history_as_aligned_lines(capsys: pytest.CaptureFixture[str]) -> None:
    client = Inbox([approval(0), approval(1)])
    assert await run(client, "inbox", "history", "--task", "task_0", "--tree", "task_9") == 0
    said = capsys.readouterr()
    lines = said.out.splitlines()
    assert [line.split() for line in lines] == [
        ["time", "what", "task", "request", "tool", "actor", "outcome", "roles", "deadline"],
        ["2026-12-08", "09:00:00Z", "approval", "opened", "task_0", "call_0", "files.write",
         "-", "-", "finance,ops", "2026-12-08", "09:10:00Z"],
        ["2026-12-08", "09:00:05Z", "approval", "answered", "task_0", "call_0", "files.write",
         "fay", "approved", "finance,ops", "2026-12-08", "09:10:00Z"],
    ]  # fmt: skip
    assert len({line.index("task_0") for line in lines[1:]}) == 1  # aligned columns
    assert said.err == "more: agentd inbox history --page-token 2 (or --all)\n"
    [(_, _, request)] = client.calls
    assert request == {
        "task_id": "task_0",
        "root_task_id": "task_9",
        "page_size": 50,
        "page_token": "",
    }


async def test_every_page_of_the_history(capsys: pytest.CaptureFixture[str]) -> None:
    client = Inbox([approval(0), approval(1), approval(2)])
    assert await run(client, "inbox", "history", "--all", "--limit", "2") == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 7
    assert "approval timed out" in lines[4]
    assert lines[4].split()[8:11] == ["deadline", "denied", "finance,ops"]
    assert [c[2]["page_token"] for c in client.calls] == ["", "2", "4"]
    assert {(c[2]["page_size"], c[2]["task_id"]) for c in client.calls} == {(2, "")}
    assert await run(client, "inbox", "--limit", "7", "history", "--page-token", "4") == 0
    assert client.calls[-1][2]["page_size"] == 7  # the listing's options, before the verb
    assert client.calls[-1][2]["page_token"] == "4"
    assert capsys.readouterr().err == ""


async def test_the_history_as_json_lines_and_when_empty(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert await run(Inbox([approval(1)]), "inbox", "history", "--json") == 0
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(p["kind"], p.get("outcome")) for p in printed] == [
        ("ACTION_HISTORY_KIND_OPENED", None),
        ("ACTION_HISTORY_KIND_TIMED_OUT", "denied"),
    ]
    assert await run(Inbox([]), "inbox", "history", "--tree", "task_1") == 0
    assert capsys.readouterr().out == (
        "no history (no action was opened, or its entries were swept)\n"
    )
