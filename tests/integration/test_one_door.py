"""One door for every tool: a delegation (`agent.<id>`) and an `ask_user` question are
admitted by the registry under the caller's grants, like any tool, and leave an audit
record with the rule that decided before the engine runs them; a refusal is what the
model sees, naming the grant or the default that refused."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from agentd.v1 import events_pb2
from tests.integration.harness import assert_well_formed, final, of_kind
from tests.integration.test_delegation import LEAD, RESEARCHER, WRITER, agents, delegate
from tests.integration.trust import trusted

ASKING = """\
id: asking
instructions: You are the asking agent.
ask_user: true
mode: function_calling
tools: []
"""


def _finished(events: list[events_pb2.TaskEvent], tool: str) -> events_pb2.ToolCallFinished:
    [found] = [f for f in of_kind(events, "tool_call_finished") if f.tool_name == tool]
    finished: events_pb2.ToolCallFinished = found
    return finished


async def test_a_delegation_no_grant_covers_is_refused_naming_the_default(
    tmp_path: Path,
) -> None:
    folder = agents(tmp_path, lead=LEAD, researcher=RESEARCHER, writer=WRITER)
    replies = [
        {"match": "You are the lead", "tool_calls": [delegate("researcher", "find it")]},
        {"match": "default:deny", "text": "Lead: I may not delegate"},
    ]
    async with trusted(tmp_path, replies, agents_dir=folder) as t:
        alice = await t.client("acme", "alice")
        await t.grant("acme", "principal:alice", "current_time", "read")  # not the team
        events = [e async for e in alice.execute("find it", agent="lead")]
        records = await t.tool_records("acme")

    assert_well_formed(events)
    assert final(events).text == "Lead: I may not delegate"
    assert not of_kind(events, "subtask_started")  # no child was started
    refused = _finished(events, "agent.researcher")
    assert refused.text.startswith("refused (PERMISSION_DENIED, default:deny): ")
    [record] = [r for r in records if r.tool_name == "agent.researcher"]
    assert (record.decision, record.rule, record.outcome) == ("denied", "default:deny", "denied")


async def test_the_most_specific_grant_refusing_by_its_window_refuses_the_delegation(
    tmp_path: Path,
) -> None:
    folder = agents(tmp_path, lead=LEAD, researcher=RESEARCHER, writer=WRITER)
    replies = [
        {"match": "You are the lead", "tool_calls": [delegate("researcher", "find it")]},
        {"match": "valid only", "text": "Lead: not now"},
    ]
    async with trusted(tmp_path, replies, agents_dir=folder) as t:
        alice = await t.client("acme", "alice")
        await t.grant("acme", "principal:alice", "category:agents", "read")  # broad: allows
        past = datetime.now(UTC) - timedelta(hours=1)  # a window that is never now
        window = f"{past:%H:%M}-{past + timedelta(minutes=1):%H:%M}"
        narrow = await t.grant("acme", "principal:alice", "agent.researcher", "read", window=window)
        events = [e async for e in alice.execute("find it", agent="lead")]
        records = await t.tool_records("acme")

    assert final(events).text == "Lead: not now"
    assert not of_kind(events, "subtask_started")
    rule = f"grant:{narrow.grant_id}"
    assert _finished(events, "agent.researcher").text.startswith(
        f"refused (PERMISSION_DENIED, {rule}): "
    )
    [record] = [r for r in records if r.tool_name == "agent.researcher"]
    assert (record.decision, record.rule, record.outcome) == ("denied", rule, "denied")


async def test_a_delegation_and_a_question_each_leave_one_audit_record_with_their_rule(
    tmp_path: Path,
) -> None:
    folder = agents(tmp_path, lead=LEAD, researcher=RESEARCHER, writer=WRITER, asking=ASKING)
    question = {"name": "ask_user", "arguments": {"question": "Which account?"}}
    replies = [
        {"match": "You are the lead", "tool_calls": [delegate("researcher", "find it")]},
        {"match": "You are the researcher", "text": "found: 42"},
        {"match": "found: 42", "text": "Lead: 42"},
        {"match": "You are the asking agent", "tool_calls": [question]},
        {"match": "account 7", "text": "Account 7 owes 42."},
    ]
    async with trusted(tmp_path, replies, agents_dir=folder) as t:
        alice = await t.client("acme", "alice")
        team = await t.grant("acme", "principal:alice", "category:agents", "read")
        asking = await t.grant("acme", "principal:alice", "ask_user", "read")
        delegated = [e async for e in alice.execute("find it", agent="lead")]

        task = await alice.start_task("owe?", agent="asking")
        request_id = ""
        async for event in alice.stream_task_events(task.task_id):
            if event.WhichOneof("payload") == "input_requested":
                request_id = event.input_requested.request_id
                break
        await alice.provide_input(task.task_id, request_id, "account 7")  # the task wakes
        asked = [e async for e in alice.stream_task_events(task.task_id)]
        records = await t.tool_records("acme")

    assert final(delegated).text == "Lead: 42"
    assert final(asked).text == "Account 7 owes 42."
    by_tool = {(r.tool_name, r.decision, r.rule, r.outcome) for r in records}
    assert ("agent.researcher", "allowed", f"grant:{team.grant_id}", "dispatched") in by_tool
    assert ("ask_user", "allowed", f"grant:{asking.grant_id}", "dispatched") in by_tool
    # Admitted once: the woken run asks the same call again without a second record.
    assert len([r for r in records if r.tool_name == "ask_user"]) == 1
    assert len([r for r in records if r.tool_name == "agent.researcher"]) == 1
