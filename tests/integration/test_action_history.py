"""The inbox's history on a running server, authentication on: two tasks wait for an approval
of a calculator call (alice's and bob's); the steps of their waits are told to the engine's
notices as the engine tells them (alice's approval opened, then answered by fay through
ApproveToolCall; bob's opened, reminded and timed out) and ListActionHistory reads what
became of each, after alice's task ended and its wait was forgotten. A task's owner reads
its own task's and its tree's, and no other's; an approver and an auditor read any of the
tenant's, page by page; another tenant's caller finds neither task; malformed requests
name each bad field; `agentd inbox history` prints the same for people and as JSON.

The steps are fed to `Engine.notices` here: the engine's own calls at each step come with
the deadlines' work. A step the engine tells as well is the same entry, kept once, so
these tests hold either way.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from agentd.v1 import inbox_pb2, tasks_pb2
from agentd_client import errors as client_errors
from agentd_client.client import AgentClient
from clients import cli
from records.inbox.steps import DEADLINE_ACTOR, ActionStep, ActionStepKind
from records.waits import Wait, WaitKind
from server.commands.cli import build_parser
from tests.integration.trust import Trust, trusted

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
REPLIES: list[dict[str, Any]] = [
    {"match": "42", "text": "done", "repeat": -1},  # the approved call's result
    {"match": "calc job", "repeat": -1,
     "tool_calls": [{"name": "calculator", "arguments": {"expression": "6*7"}}]},
]  # fmt: skip
K = inbox_pb2.ActionHistoryKind


async def reaches(client: AgentClient, task_id: str, status: int) -> None:
    async with asyncio.timeout(30):
        while True:
            if (await client.get_task(task_id)).status == status:
                return
            await asyncio.sleep(0.05)


async def waiting(client: AgentClient, goal: str) -> str:
    """A new task of `client`'s that waits for an approval."""
    task = await client.start_task(goal, mode=FC)
    await reaches(client, task.task_id, tasks_pb2.TASK_STATUS_INPUT_REQUIRED)
    return task.task_id


async def approval_of(t: Trust, task_id: str) -> Wait:
    waits = await t.server.durable.inbox.waits.of_task(task_id)
    assert [w.kind for w in waits] == [WaitKind.APPROVAL]
    return waits[0]


async def every_entry(
    client: AgentClient, size: int, task_id: str = "", root_task_id: str = ""
) -> list[inbox_pb2.ActionHistoryEntry]:
    found: list[inbox_pb2.ActionHistoryEntry] = []
    token = ""
    for _ in range(50):
        page = await client.list_action_history(
            task_id=task_id, root_task_id=root_task_id, page_size=size, page_token=token
        )
        assert len(page.entries) == size or not page.next_page_token
        found.extend(page.entries)
        token = page.next_page_token
        if not token:
            return found
    raise AssertionError("the pages never ended")


def steps(entries: list[inbox_pb2.ActionHistoryEntry]) -> list[tuple[str, int, str, str]]:
    return [(e.task_id, e.kind, e.actor, e.outcome) for e in entries]


async def run_cli(client: AgentClient, *argv: str) -> int:
    args = build_parser().parse_args(list(argv))
    return await cli._COMMANDS[args.command](client, args)


async def test_what_became_of_each_approval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with trusted(tmp_path, REPLIES) as t:
        alice = await t.client("acme", "alice")
        bob = await t.client("acme", "bob")
        fay = await t.client("acme", "fay", "approver")
        audrey = await t.client("acme", "audrey", "auditor")
        gina = await t.client("globex", "gina", "auditor", "approver")
        for who in ("alice", "bob"):
            await t.grant("acme", f"principal:{who}", "calculator", "read", requires_approval=True)
        mine, theirs = await waiting(alice, "calc job one"), await waiting(bob, "calc job two")
        first, second = await approval_of(t, mine), await approval_of(t, theirs)
        assert first.deadline_at is not None  # what is left of the task's wait limit
        notices, now = t.server.engine.notices, datetime.now(UTC)

        await notices.action(ActionStep(ActionStepKind.OPENED, first, first.created_at))
        await notices.action(ActionStep(ActionStepKind.OPENED, second, second.created_at))
        await fay.approve_tool_call(mine, first.slot, "approve")
        answered = ActionStep(ActionStepKind.ANSWERED, first, now, "fay", "approved")
        await notices.action(answered)
        await notices.action(answered)  # told twice: one entry
        reminded = ActionStep(ActionStepKind.REMINDED, second, now + timedelta(seconds=1))
        await notices.action(replace(reminded, actor=DEADLINE_ACTOR))
        timed_out = ActionStep(
            ActionStepKind.TIMED_OUT, second, now + timedelta(seconds=2), DEADLINE_ACTOR, "denied"
        )
        await notices.action(timed_out)
        await reaches(alice, mine, tasks_pb2.TASK_STATUS_COMPLETED)  # its wait is forgotten
        assert await t.server.durable.inbox.waits.of_task(mine) == []

        # the owner: its own task's history, and its tree's
        own = await every_entry(alice, 0, task_id=mine)
        assert steps(own) == [
            (mine, K.ACTION_HISTORY_KIND_OPENED, "", ""),
            (mine, K.ACTION_HISTORY_KIND_ANSWERED, "fay", "approved"),
        ]
        for entry in own:
            assert entry.action_kind == inbox_pb2.PENDING_ACTION_KIND_APPROVAL
            assert (entry.root_task_id, entry.request_id) == (mine, first.slot)
            assert (entry.tool_name, entry.agent) == ("calculator", "")
            assert list(entry.roles) == list(first.roles)
            assert entry.deadline.ToDatetime(UTC) == first.deadline_at
            assert "6*7" not in str(entry)  # what was asked is not kept
        assert own[0].time.ToDatetime(UTC) <= own[1].time.ToDatetime(UTC)
        assert await every_entry(alice, 1, root_task_id=mine) == own
        with pytest.raises(client_errors.PermissionDeniedError, match="another principal"):
            await alice.list_action_history(task_id=theirs)
        with pytest.raises(client_errors.PermissionDeniedError, match="of every task"):
            await alice.list_action_history()
        with pytest.raises(client_errors.TaskNotFoundError):
            await alice.list_action_history(task_id="task_nobody")
        theirs_entries = await every_entry(bob, 0, task_id=theirs)
        assert steps(theirs_entries) == [
            (theirs, K.ACTION_HISTORY_KIND_OPENED, "", ""),
            (theirs, K.ACTION_HISTORY_KIND_REMINDED, DEADLINE_ACTOR, ""),
            (theirs, K.ACTION_HISTORY_KIND_TIMED_OUT, DEADLINE_ACTOR, "denied"),
        ]

        # an approver and an auditor: any task's, and the whole tenant's, page by page
        assert await every_entry(fay, 2, task_id=theirs) == theirs_entries
        everything = await every_entry(audrey, 2)
        assert len(everything) == 5
        assert sorted(map(str, everything)) == sorted(map(str, own + theirs_entries))
        times = [e.time.ToDatetime(UTC) for e in everything]
        assert times == sorted(times)
        assert await every_entry(audrey, 500) == everything

        # another tenant's caller finds neither task, and none of their history
        for task_id in (mine, theirs):
            with pytest.raises(client_errors.TaskNotFoundError):
                await gina.list_action_history(task_id=task_id)
            with pytest.raises(client_errors.TaskNotFoundError):
                await gina.list_action_history(root_task_id=task_id)
        assert list((await gina.list_action_history()).entries) == []

        # malformed requests name each bad field
        with pytest.raises(client_errors.InvalidArgumentError) as bad:
            await audrey.list_action_history(task_id="t" * 65, page_size=501)
        assert {v.field for v in bad.value.field_violations} == {"task_id", "page_size"}
        with pytest.raises(client_errors.InvalidArgumentError) as bad:
            await audrey.list_action_history(page_token="not a token", root_task_id="a\tb")
        assert {v.field for v in bad.value.field_violations} == {"page_token", "root_task_id"}

        # the command line: for people, and as JSON
        capsys.readouterr()
        assert await run_cli(alice, "inbox", "history", "--task", mine) == 0
        lines = capsys.readouterr().out.splitlines()
        assert lines[0].split() == [
            "time", "what", "task", "request", "tool", "actor", "outcome", "roles", "deadline"
        ]  # fmt: skip
        assert len(lines) == 3
        assert "approval opened" in lines[1]
        assert "approval answered" in lines[2]
        for part in (mine, first.slot, "calculator", "fay", "approved", ",".join(first.roles)):
            assert part in lines[2]
        assert await run_cli(audrey, "inbox", "history", "--tree", theirs, "--json") == 0
        printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert [p["kind"] for p in printed] == [
            "ACTION_HISTORY_KIND_OPENED",
            "ACTION_HISTORY_KIND_REMINDED",
            "ACTION_HISTORY_KIND_TIMED_OUT",
        ]
        assert printed[-1]["outcome"] == "denied"
        assert await run_cli(audrey, "inbox", "history", "--limit", "2") == 0
        out, err = capsys.readouterr()
        assert len(out.splitlines()) == 3  # a header and one page
        assert "agentd inbox history --page-token" in err
        assert await run_cli(audrey, "inbox", "history", "--limit", "2", "--all") == 0
        assert len(capsys.readouterr().out.splitlines()) == 6  # a header and every entry
