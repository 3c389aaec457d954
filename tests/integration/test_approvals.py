"""Human approval of tool calls through Execute and ApproveToolCall: approve, reject, edit;
who may decide; and what the events and the audit log say."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Literal

import pytest

from agentd.v1 import events_pb2, tasks_pb2, tools_pb2
from agentd_client import errors as client_errors
from tests.integration.harness import assert_well_formed, of_kind
from tests.integration.trust import trusted

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
CALL = {"tool_calls": [{"name": "calculator", "arguments": {"expression": "6*7"}}]}

CASES: dict[str, dict[str, Any]] = {
    "approve": {"arguments": None, "text": "42", "audit": "approved", "error": None},
    "reject": {
        "arguments": None,
        "text": "rejected by carol: not today",
        "audit": "rejected",
        "error": tools_pb2.TOOL_ERROR_KIND_REJECTED,
    },
    "edit": {"arguments": {"expression": "2+2"}, "text": "4", "audit": "edited", "error": None},
}


@pytest.mark.parametrize("decision", ["approve", "reject", "edit"])
async def test_approval_round_trip(
    tmp_path: Path, decision: Literal["approve", "reject", "edit"]
) -> None:
    case = CASES[decision]
    async with trusted(tmp_path, [CALL, {"text": "done"}], step_timeout_seconds=1.0) as t:
        alice = await t.client("acme", "alice")
        carol = await t.client("acme", "carol", "approver")
        mallory = await t.client("globex", "mallory", "approver")
        await t.grant("acme", "principal:alice", "calculator", "read", requires_approval=True)

        stream = alice.execute("what is 6*7?", mode=FC)
        events: list[events_pb2.TaskEvent] = []
        async for event in stream:
            events.append(event)
            if event.WhichOneof("payload") == "approval_requested":
                break
        task_id = events[0].task_id
        asked = events[-1].approval_requested
        assert (asked.tool_name, dict(asked.arguments)) == ("calculator", {"expression": "6*7"})
        assert "grant" in asked.reason
        assert (await alice.get_task(task_id)).status == tasks_pb2.TASK_STATUS_INPUT_REQUIRED
        # Longer than the step timeout: waiting for a person does not use up the step.
        await asyncio.sleep(1.5)

        with pytest.raises(client_errors.PermissionDeniedError, match="approver"):
            await alice.approve_tool_call(task_id, asked.call_id, "approve")
        with pytest.raises(client_errors.TaskNotFoundError):
            await mallory.approve_tool_call(task_id, asked.call_id, "approve")
        with pytest.raises(client_errors.ApprovalNotPendingError):
            await carol.approve_tool_call(task_id, "call_unknown", "approve")
        with pytest.raises(client_errors.InvalidArgumentError):  # arguments only with EDIT
            await carol.approve_tool_call(task_id, asked.call_id, "approve", arguments={"a": 1})

        comment = "not today" if decision == "reject" else "ok"
        await carol.approve_tool_call(
            task_id, asked.call_id, decision, arguments=case["arguments"], comment=comment
        )
        with pytest.raises(client_errors.ApprovalNotPendingError):  # decided once only
            await carol.approve_tool_call(task_id, asked.call_id, "reject")
        events.extend([event async for event in stream])

        assert_well_formed(events)
        decided = of_kind(events, "approval_decided")[0]
        assert (decided.call_id, decided.decided_by, decided.comment) == (
            asked.call_id,
            "carol",
            comment,
        )
        if case["arguments"]:
            assert dict(decided.arguments) == case["arguments"]
        finished = of_kind(events, "tool_call_finished")[0]
        assert finished.call_id == asked.call_id
        if case["error"] is None:
            assert finished.text == case["text"]
        else:
            assert finished.error.kind == case["error"]
            assert finished.error.message == case["text"]
        statuses = [e.current for e in of_kind(events, "status_changed")]
        assert statuses == [
            tasks_pb2.TASK_STATUS_PENDING,
            tasks_pb2.TASK_STATUS_RUNNING,
            tasks_pb2.TASK_STATUS_INPUT_REQUIRED,
            tasks_pb2.TASK_STATUS_RUNNING,
            tasks_pb2.TASK_STATUS_COMPLETED,
        ]
        assert case["text"] in str(t.llm.requests[1]["messages"])  # the model was told

        (record,) = [r for r in await t.tool_records("acme") if r.call_id == asked.call_id]
        assert (record.approval, record.approved_by, record.approval_comment) == (
            case["audit"],
            "carol",
            comment,
        )
        assert record.outcome == ("rejected" if decision == "reject" else "ok")
        assert record.task_id == task_id
        if decision == "edit":
            assert record.arguments == {"expression": "2+2"}


async def test_a_task_waiting_for_approval_is_listed_as_waiting(tmp_path: Path) -> None:
    """An approver's view of the tasks waiting for a decision: ListTasks by
    INPUT_REQUIRED finds a task whose history row (written as it started) says RUNNING."""
    async with trusted(tmp_path, [CALL, {"text": "done"}]) as t:
        alice = await t.client("acme", "alice")
        await t.grant("acme", "principal:alice", "calculator", "read", requires_approval=True)
        stream = alice.execute("what is 6*7?", mode=FC)
        async for event in stream:
            if event.WhichOneof("payload") == "approval_requested":
                break
        waiting = await alice.list_tasks(statuses=[tasks_pb2.TASK_STATUS_INPUT_REQUIRED])
        assert [t.task_id for t in waiting.tasks] == [event.task_id]
        assert waiting.tasks[0].status == tasks_pb2.TASK_STATUS_INPUT_REQUIRED
        assert not (await alice.list_tasks(statuses=[tasks_pb2.TASK_STATUS_RUNNING])).tasks
        await alice.cancel_task(event.task_id)
        _ = [e async for e in stream]


async def test_edited_arguments_are_checked_again(tmp_path: Path) -> None:
    call = {"tool_calls": [{"name": "read_file", "arguments": {"path": "reports/q3.txt"}}]}
    async with trusted(tmp_path, [call, {"text": "done"}]) as t:
        (tmp_path / "workspace" / "reports").mkdir()
        (tmp_path / "workspace" / "reports" / "q3.txt").write_text("q3")
        (tmp_path / "workspace" / "secret.txt").write_text("secret")
        alice = await t.client("acme", "alice", "approver")
        await t.grant(
            "acme",
            "principal:alice",
            "read_file",
            "read",
            arguments={"path": ("reports/",)},
            requires_approval=True,
        )
        stream = alice.execute("read the report", mode=FC)
        events = []
        async for event in stream:
            events.append(event)
            if event.WhichOneof("payload") == "approval_requested":
                break
        asked = events[-1].approval_requested
        await alice.approve_tool_call(
            events[0].task_id, asked.call_id, "edit", arguments={"path": "secret.txt"}
        )
        events.extend([event async for event in stream])
        finished = of_kind(events, "tool_call_finished")[0]
        assert "PERMISSION_DENIED" in finished.error.message
        assert "secret" not in finished.text
        records = [r for r in await t.tool_records("acme") if r.call_id == asked.call_id]
        assert [(r.decision, r.outcome, r.approval) for r in records] == [
            ("denied", "denied", "edited")
        ]


async def test_call_tool_cannot_wait_for_an_approval(tmp_path: Path) -> None:
    async with trusted(tmp_path, approval_tools=["calculator"]) as t:
        alice = await t.client("acme", "alice")
        await t.grant("acme", "principal:alice", "calculator", "read")
        with pytest.raises(client_errors.PermissionDeniedError, match="approval"):
            await alice.call_tool("calculator", {"expression": "1+1"})
        (record,) = await t.tool_records("acme")
        assert (record.decision, record.rule.endswith(":approval")) == ("denied", True)


async def test_the_approver_roles_setting_decides_who_approves(tmp_path: Path) -> None:
    """AGENTD_APPROVER_ROLES reaches ApproveToolCall (through the role table): with
    `boss` alone, an `approver` may not decide, a `boss` may."""
    async with trusted(tmp_path, [CALL, {"text": "done"}], approver_roles=["boss"]) as t:
        alice = await t.client("acme", "alice")
        carol = await t.client("acme", "carol", "approver")
        dave = await t.client("acme", "dave", "boss")
        await t.grant("acme", "principal:alice", "calculator", "read", requires_approval=True)
        stream = alice.execute("what is 6*7?", mode=FC)
        async for event in stream:
            if event.WhichOneof("payload") == "approval_requested":
                break
        call_id = event.approval_requested.call_id
        with pytest.raises(client_errors.PermissionDeniedError, match=r"roles: boss$"):
            await carol.approve_tool_call(event.task_id, call_id, "approve")
        await dave.approve_tool_call(event.task_id, call_id, "approve")
        rest = [e async for e in stream]
        assert of_kind(rest, "tool_call_finished")[0].text == "42"
