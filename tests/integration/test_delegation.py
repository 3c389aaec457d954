"""Delegation to sub-agents as child tasks, through the real server and the fake model:
the parent's stream, each child's own stream, ListTasks by parent, usage rolled up,
depth and children limits, cycles, cancel, and a child's budget share."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from agent.definitions.files import AgentFiles
from agentd.v1 import events_pb2, tasks_pb2
from agentd_client import errors as client_errors
from tests.integration.harness import assert_well_formed, final, harness, of_kind

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
USAGE = {"prompt_tokens": 10, "completion_tokens": 5}

LEAD = """\
id: lead
description: Plans and delegates
instructions: You are the lead.
mode: function_calling
tools: [current_time]
delegates: [researcher, writer]
"""
RESEARCHER = """\
id: researcher
description: Finds facts in sources
instructions: You are the researcher.
mode: function_calling
tools: [calculator]
"""
WRITER = """\
id: writer
description: Writes clear prose
instructions: You are the writer.
mode: function_calling
tools: [calculator]
"""


def agents(folder: Path, **files: str) -> Path:
    where = folder / "agents"
    where.mkdir()
    for name, text in files.items():
        (where / f"{name}.yaml").write_text(text)
    return where


def delegate(agent: str, task: str, call_id: str = "") -> dict[str, Any]:
    call: dict[str, Any] = {"name": f"agent_{agent}", "arguments": {"task": task}}
    if call_id:
        call["id"] = call_id
    return call


def offered(request: dict[str, Any]) -> list[str]:
    return sorted(t["function"]["name"] for t in request.get("tools", []))


async def test_a_lead_delegates_to_two_sub_agents_in_parallel_then_answers(
    tmp_path: Path,
) -> None:
    folder = agents(tmp_path, lead=LEAD, researcher=RESEARCHER, writer=WRITER)
    replies = [
        {
            "match": "You are the lead",
            "tool_calls": [delegate("researcher", "find the fact"), delegate("writer", "draft")],
            "usage": USAGE,
        },
        {"match": "You are the researcher", "text": "Fact: 42", "usage": USAGE},
        {"match": "You are the writer", "text": "Draft: hello", "usage": USAGE},
        {"match": "Fact: 42", "text": "Both done: 42, hello", "usage": USAGE},
    ]
    async with harness(tmp_path, replies, agents_dir=folder) as h:
        events = await h.run("Research and write", agent="lead")

        assert_well_formed(events)
        assert final(events).text == "Both done: 42, hello"
        parent_id = events[0].task_id
        assert offered(h.llm.requests[0]) == ["agent_researcher", "agent_writer", "current_time"]
        started = of_kind(events, "subtask_started")
        finished = of_kind(events, "subtask_finished")
        assert sorted(s.agent for s in started) == ["researcher@1", "writer@1"]
        assert sorted(s.task for s in started) == ["draft", "find the fact"]
        assert {f.child_task_id for f in finished} == {s.child_task_id for s in started}
        assert {f.answer for f in finished} == {"Fact: 42", "Draft: hello"}
        assert all(f.status == tasks_pb2.TASK_STATUS_COMPLETED for f in finished)
        assert all(f.usage.total_tokens == 15 for f in finished)
        calls = of_kind(events, "tool_call_started")
        assert sorted(c.tool_name for c in calls) == ["agent.researcher", "agent.writer"]

        for child in started:  # each child's own full stream
            child_events = [e async for e in h.client.stream_task_events(child.child_task_id)]
            assert_well_formed(child_events)
            task = await h.client.get_task(child.child_task_id)
            assert (task.parent_task_id, task.root_task_id, task.depth) == (
                parent_id,
                parent_id,
                1,
            )
        listed = await h.client.list_tasks(parent_task_id=parent_id)
        assert sorted(t.task_id for t in listed.tasks) == sorted(s.child_task_id for s in started)
        assert all(t.task_id != parent_id for t in (await h.client.list_tasks()).tasks[:0])

        parent = await h.client.get_task(parent_id)
        assert parent.root_task_id == parent_id
        assert parent.depth == 0
        assert parent.usage.total_tokens == 2 * 15 + 2 * 15  # its own two calls + children
        assert sorted((c.agent, c.usage.total_tokens) for c in parent.children) == [
            ("researcher@1", 15),
            ("writer@1", 15),
        ]
        assert all(c.status == tasks_pb2.TASK_STATUS_COMPLETED for c in parent.children)


async def test_list_tools_for_an_agent_shows_its_delegates(tmp_path: Path) -> None:
    folder = agents(tmp_path, lead=LEAD, researcher=RESEARCHER, writer=WRITER)
    async with harness(tmp_path, [], agents_dir=folder) as h:
        tools = {t.name: t for t in await h.client.list_tools(agent="lead")}
        assert sorted(tools) == ["agent.researcher", "agent.writer", "current_time"]
        assert "Finds facts in sources" in tools["agent.researcher"].description


A = "id: a\ninstructions: You are A.\nmode: function_calling\ntools: []\ndelegates: [b]\n"
B = "id: b\ninstructions: You are B.\nmode: function_calling\ntools: []\ndelegates: [c]\n"
C = "id: c\ninstructions: You are C.\nmode: function_calling\ntools: []\ndelegates: [d]\n"
D = "id: d\ninstructions: You are D.\nmode: function_calling\ntools: []\n"


async def test_two_levels_work_and_a_third_past_the_depth_limit_is_refused(
    tmp_path: Path,
) -> None:
    folder = agents(tmp_path, a=A, b=B, c=C, d=D)
    replies = [
        {"match": "You are A", "tool_calls": [delegate("b", "level one")]},
        {"match": "You are B", "tool_calls": [delegate("c", "level two")]},
        {"match": "You are C", "tool_calls": [delegate("d", "level three")]},
        {"match": "AGENTD_MAX_DELEGATION_DEPTH", "text": "C: could not go deeper"},
        {"match": "C: could not go deeper", "text": "B: done"},
        {"match": "B: done", "text": "A: done"},
    ]
    async with harness(tmp_path, replies, agents_dir=folder, max_delegation_depth=2) as h:
        events = await h.run("go deep", agent="a")

        assert_well_formed(events)
        assert final(events).text == "A: done"
        b_id = of_kind(events, "subtask_started")[0].child_task_id
        b_events = [e async for e in h.client.stream_task_events(b_id)]
        c_id = of_kind(b_events, "subtask_started")[0].child_task_id
        c_task = await h.client.get_task(c_id)
        assert (c_task.parent_task_id, c_task.root_task_id, c_task.depth) == (
            b_id,
            events[0].task_id,
            2,
        )
        c_events = [e async for e in h.client.stream_task_events(c_id)]
        assert of_kind(c_events, "subtask_started") == []
        refusal = of_kind(c_events, "tool_call_finished")[0]
        assert refusal.tool_name == "agent.d"
        assert "AGENTD_MAX_DELEGATION_DEPTH" in refusal.error.message
        assert "3 levels deep; the limit is 2" in refusal.error.message
        assert not any("You are D" in str(r["messages"]) for r in h.llm.requests)


async def test_a_delegation_cycle_is_refused_when_agents_load(tmp_path: Path) -> None:
    x = "id: x\ninstructions: X\ndelegates: [y]\n"
    y = "id: y\ninstructions: Y\ndelegates: [x]\n"
    folder = agents(tmp_path, x=x, y=y, lead=LEAD, researcher=RESEARCHER, writer=WRITER)
    async with harness(tmp_path, [], agents_dir=folder) as h:
        for agent in ("x", "y"):
            with pytest.raises(client_errors.AgentNotFoundError):
                await h.client.start_task("hi", agent=agent)
        files = AgentFiles(folder)
        files.load()
        assert {(p.field, "x -> y -> x" in p.problem) for p in files.problems} == {
            ("delegates", True)
        }
        assert (await h.client.get_agent("lead")).delegates == ["researcher", "writer"]


async def test_cancelling_the_parent_cancels_every_child_within_a_second(tmp_path: Path) -> None:
    folder = agents(tmp_path, lead=LEAD, researcher=RESEARCHER, writer=WRITER)
    replies = [
        {
            "match": "You are the lead",
            "tool_calls": [delegate("researcher", "slow one"), delegate("writer", "slow two")],
        },
        {"match": "You are the researcher", "hold": "never", "text": "late"},
        {"match": "You are the writer", "hold": "never", "text": "late"},
    ]
    async with harness(tmp_path, replies, agents_dir=folder) as h:
        started: list[events_pb2.SubtaskStarted] = []
        parent_id = ""
        async for event in h.client.execute("work", agent="lead"):
            parent_id = event.task_id
            if event.WhichOneof("payload") == "subtask_started":
                started.append(event.subtask_started)
                if len(started) == 2:
                    break
        for _ in range(100):  # both children are asking their model
            if len(h.llm.requests) == 3:
                break
            await asyncio.sleep(0.02)
        begun = time.monotonic()
        await h.client.cancel_task(parent_id)
        statuses: list[int] = []
        while time.monotonic() - begun < 1.0:
            statuses = [(await h.client.get_task(s.child_task_id)).status for s in started]
            if all(s == tasks_pb2.TASK_STATUS_CANCELLED for s in statuses):
                break
            await asyncio.sleep(0.02)
        assert statuses == [tasks_pb2.TASK_STATUS_CANCELLED] * 2
        assert (await h.client.get_task(parent_id)).status == tasks_pb2.TASK_STATUS_CANCELLED


async def test_fifty_delegations_in_one_turn_start_the_cap_and_refuse_the_rest(
    tmp_path: Path,
) -> None:
    folder = agents(tmp_path, lead=LEAD, researcher=RESEARCHER, writer=WRITER)
    calls = [delegate("researcher", f"part {i}") for i in range(50)]
    replies = [
        {"match": "You are the lead", "tool_calls": calls},
        {"match": "You are the researcher", "text": "part done", "repeat": -1,
         "delay_seconds": 0.05},
        {"match": "AGENTD_MAX_CHILDREN_PER_TASK", "text": "eight parts done"},
    ]  # fmt: skip
    async with harness(tmp_path, replies, agents_dir=folder, max_parallel_delegations=3) as h:
        events = await h.run("split it", agent="lead")

        assert_well_formed(events)
        assert final(events).text == "eight parts done"
        started = of_kind(events, "subtask_started")
        assert len(started) == 8
        parent = await h.client.get_task(events[0].task_id)
        assert len(parent.children) == 8
        refused = [
            f
            for f in of_kind(events, "tool_call_finished")
            if "AGENTD_MAX_CHILDREN_PER_TASK" in f.error.message
        ]
        assert len(refused) == 32 - 8  # AGENTD_MAX_TOOL_CALLS_PER_TURN runs 32 of the 50
        # At most three children ran at once: each started after an earlier one ended.
        children = [await h.client.get_task(s.child_task_id) for s in started]
        spans = sorted((c.create_time.ToDatetime(), c.update_time.ToDatetime()) for c in children)
        overlap = max(sum(1 for s, e in spans if s <= start < e) for start, _ in spans)
        assert overlap <= 3


async def test_children_share_the_parents_budget_and_one_that_runs_out_stops_alone(
    tmp_path: Path,
) -> None:
    folder = agents(tmp_path, lead=LEAD, researcher=RESEARCHER, writer=WRITER)
    big = {"completion_tokens": 500}  # each reply as long as the model may make it
    replies = [
        {
            "match": "You are the lead",
            "tool_calls": [
                delegate("researcher", "one"),
                delegate("writer", "two"),
                delegate("writer", "three"),
            ],
            "usage": {"prompt_tokens": 400, "completion_tokens": 100},
        },
        # The researcher keeps calling tools: its share (3,500/4) runs out. Its last call is
        # capped to the share it has left (the fake model cuts its reply there).
        {"match": "You are the researcher", "repeat": -1, "usage": big,
         "tool_calls": [{"name": "calculator", "arguments": {"expression": "1+1"}}]},
        {"match": "You are the writer", "text": "written", "repeat": 2, "usage": USAGE},
        {"match": "written", "text": "synthesised", "usage": USAGE},
    ]  # fmt: skip
    async with harness(tmp_path, replies, agents_dir=folder) as h:
        events = await h.run("fan out", agent="lead", token_budget=4000)

        assert_well_formed(events)
        assert final(events).text == "synthesised"
        finished = {f.agent: f for f in of_kind(events, "subtask_finished")}
        researcher = finished["researcher@1"]
        assert researcher.stop_reason == tasks_pb2.STOP_REASON_TOKEN_BUDGET
        parent = await h.client.get_task(events[0].task_id)
        assert parent.usage.total_tokens <= 4000
        assert parent.usage.total_tokens == 500 + 15 + sum(
            c.usage.total_tokens for c in parent.children
        )
        shares = [(await h.client.get_task(c.task_id)).usage.total_tokens for c in parent.children]
        assert all(0 < s <= 3500 // 4 for s in shares)  # never past its share
        asked = [r for r in h.llm.requests if "You are the researcher" in str(r["messages"])]
        assert asked[-1]["max_tokens"] < 500  # its last call asked no more than was left
