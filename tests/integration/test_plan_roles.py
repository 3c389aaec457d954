"""Plan steps assigned by role: the planner sees the lead's delegates and may name one per
step; such a step runs as that agent's child task; a caller's plan may assign agents."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentd.v1 import tasks_pb2
from agentd_client import errors as client_errors
from tests.integration.harness import PLANNER, assert_well_formed, final, harness, of_kind
from tests.integration.test_delegation import RESEARCHER, WRITER, agents

LEAD = """\
id: lead
description: Plans and delegates
instructions: You are the lead.
mode: plan_and_execute
critic_policy: "off"
tools: [current_time]
delegates: [researcher, writer]
"""
STEPS = [
    {"id": "find", "description": "find the fact", "agent": "researcher"},
    {"id": "write", "description": "write it up", "agent": "writer", "depends_on": ["find"]},
]


async def test_a_plan_whose_steps_name_agents_runs_each_as_that_agents_child(
    tmp_path: Path,
) -> None:
    folder = agents(tmp_path, lead=LEAD, researcher=RESEARCHER, writer=WRITER)
    replies = [
        {"match": PLANNER, "json": {"steps": STEPS}},
        {"match": "You are the researcher", "text": "Fact: 42"},
        {"match": "You are the writer", "text": "Report: the fact is 42"},
        {"match": "Report: the fact is 42", "text": "Final: 42"},
    ]
    async with harness(tmp_path, replies, agents_dir=folder) as h:
        events = await h.run("research and report", agent="lead")

        assert_well_formed(events)
        assert final(events).text == "Final: 42"
        planner = h.llm.requests[0]["messages"][0]["content"]
        assert "agent.researcher: Hand a sub-task to researcher: Finds facts" in planner
        assert '"agent": "<id>"' in planner
        [created] = of_kind(events, "plan_created")
        assert [(s.id, s.agent, s.tool) for s in created.plan.steps] == [
            ("find", "researcher", ""),
            ("write", "writer", ""),
        ]
        started = of_kind(events, "subtask_started")
        assert [s.agent for s in started] == ["researcher@1", "writer@1"]
        writer_task = next(r for r in h.llm.requests if "You are the writer" in str(r))
        assert "Fact: 42" in writer_task["messages"][-1]["content"]  # its input, from "find"
        parent = await h.client.get_task(events[0].task_id)
        assert [c.agent for c in parent.children] == ["researcher@1", "writer@1"]
        assert [s.agent for s in parent.plan.steps] == ["researcher", "writer"]


async def test_the_plan_rpc_shows_which_agent_runs_each_step(tmp_path: Path) -> None:
    folder = agents(tmp_path, lead=LEAD, researcher=RESEARCHER, writer=WRITER)
    replies = [{"match": PLANNER, "json": {"steps": STEPS}}]
    async with harness(tmp_path, replies, agents_dir=folder) as h:
        plan = await h.client.plan("research and report", agent="lead")
        assert [(s.id, s.agent) for s in plan.steps] == [
            ("find", "researcher"),
            ("write", "writer"),
        ]
        assert "agent.writer: Hand a sub-task to writer" in str(h.llm.requests[0]["messages"])
        assert (await h.client.list_tasks()).tasks == []  # planning starts no task


async def test_a_callers_plan_may_assign_agents_and_unknown_ones_are_refused(
    tmp_path: Path,
) -> None:
    folder = agents(tmp_path, lead=LEAD, researcher=RESEARCHER, writer=WRITER)
    replies = [
        {"match": "You are the researcher", "text": "Fact: 7"},
        {"match": "Fact: 7", "text": "Final: 7"},
    ]
    async with harness(tmp_path, replies, agents_dir=folder) as h:
        given = tasks_pb2.Plan(
            steps=[tasks_pb2.PlanStep(id="s1", description="find it", agent="researcher")]
        )
        events = await h.run("find", agent="lead", plan=given)
        assert_well_formed(events)
        assert final(events).text == "Final: 7"
        assert [s.agent for s in of_kind(events, "subtask_started")] == ["researcher@1"]
        assert not any(PLANNER in str(r["messages"]) for r in h.llm.requests)

        bad = tasks_pb2.Plan(steps=[tasks_pb2.PlanStep(id="s1", description="x", agent="nobody")])
        with pytest.raises(client_errors.InvalidArgumentError) as refused:
            await h.client.start_task("find", agent="lead", plan=bad)
        assert "'nobody' is not an agent this task may delegate to" in str(refused.value)
