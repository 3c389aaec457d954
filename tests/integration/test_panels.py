"""A voting panel through the real server and the fake model: K members as child tasks,
grouping by normalised exact match or by a judge model, the ratio against the
threshold, a failed member counted against it, and every vote an event."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.integration.harness import assert_well_formed, final, harness, of_kind
from tests.integration.test_delegation import agents

LEAD = """\
id: lead
description: Asks a panel
instructions: You are the lead.
mode: function_calling
tools: []
panels:
  - name: review
    agents: [alpha, beta, gamma]
    description: three reviewers
"""
JUDGED = LEAD + "    judge_model: judge-model\n"


def member(name: str) -> str:
    return f"id: {name}\ninstructions: You are member {name}.\nmode: function_calling\ntools: []\n"


MEMBERS = {"alpha": member("alpha"), "beta": member("beta"), "gamma": member("gamma")}
ASK = {"tool_calls": [{"name": "panel_review", "arguments": {"question": "Capital of France?"}}]}


def script(alpha: Any, beta: Any, gamma: Any) -> list[dict[str, Any]]:
    return [
        {"match": "You are the lead", **ASK},
        {"match": "You are member alpha", **alpha},
        {"match": "You are member beta", **beta},
        {"match": "You are member gamma", **gamma},
        {"match": "Panel review", "text": "Lead: decided"},
    ]


@pytest.mark.parametrize(
    ("alpha", "beta", "gamma", "answer", "ratio", "reached"),
    [
        ({"text": "Paris"}, {"text": "paris."}, {"text": "Lyon"}, "Paris", 0.67, True),
        ({"text": "Paris"}, {"text": "Lyon"}, {"text": "Nice"}, "Paris", 0.33, False),
        # A failed member counts against the ratio: 2 of 3 agree, 1 failed.
        (
            {"text": "Paris"},
            {"text": "Paris"},
            {"error": {"status": 400, "message": "bad request"}},
            "Paris",
            0.67,
            True,
        ),
        # Two members fail: the one answer left is 1 of 3, not 1 of 1.
        (
            {"text": "Paris"},
            {"error": {"status": 400, "message": "bad"}},
            {"error": {"status": 400, "message": "bad"}},
            "Paris",
            0.33,
            False,
        ),
    ],
)
async def test_a_panel_of_three_votes_and_reports_its_consensus(
    tmp_path: Path,
    alpha: dict[str, Any],
    beta: dict[str, Any],
    gamma: dict[str, Any],
    answer: str,
    ratio: float,
    reached: bool,
) -> None:
    folder = agents(tmp_path, lead=LEAD, **MEMBERS)
    async with harness(tmp_path, script(alpha, beta, gamma), agents_dir=folder) as h:
        events = await h.run("decide", agent="lead")

        assert_well_formed(events)
        assert final(events).text == "Lead: decided"
        votes = of_kind(events, "panel_vote")
        assert sorted(v.agent for v in votes) == ["alpha", "beta", "gamma"]
        failed = [v for v in votes if not v.ok]
        assert all(v.group == -1 for v in failed)
        decided = of_kind(events, "panel_decided")
        assert len(decided) == 1
        assert decided[0].panel == "panel.review"
        assert (decided[0].answer, round(decided[0].ratio, 2), decided[0].reached) == (
            answer,
            ratio,
            reached,
        )
        assert (decided[0].threshold, decided[0].members, decided[0].grouping) == (
            0.6,
            3,
            "exact",
        )
        started = of_kind(events, "subtask_started")
        assert sorted(s.agent for s in started) == ["alpha@1", "beta@1", "gamma@1"]
        assert all(s.panel == "panel.review" for s in started)
        parent = await h.client.get_task(events[0].task_id)
        assert [c.panel for c in parent.children] == ["panel.review"] * 3
        result = of_kind(events, "tool_call_finished")[0]
        verdict = "consensus reached" if reached else "consensus NOT reached"
        assert verdict in result.text
        lead_second = h.llm.requests[-1]
        assert verdict in str(lead_second["messages"])


async def test_a_judge_model_groups_answers_that_mean_the_same(tmp_path: Path) -> None:
    folder = agents(tmp_path, lead=JUDGED, **MEMBERS)
    replies = [
        *script({"text": "Paris"}, {"text": "The capital is Paris"}, {"text": "Lyon"})[:4],
        {"match": "You group answers", "json": {"groups": [[1, 2], [3]]}},
        {"match": "Panel review", "text": "Lead: decided"},
    ]
    async with harness(tmp_path, replies, agents_dir=folder) as h:
        events = await h.run("decide", agent="lead")

        assert_well_formed(events)
        decided = of_kind(events, "panel_decided")[0]
        assert (decided.answer, round(decided.ratio, 2), decided.reached, decided.grouping) == (
            "Paris",
            0.67,
            True,
            "judge",
        )
        judge = next(r for r in h.llm.requests if "You group answers" in str(r["messages"]))
        assert judge["model"] == "judge-model"
        assert "2. The capital is Paris" in judge["messages"][1]["content"]
        groups = {v.agent: v.group for v in of_kind(events, "panel_vote")}
        assert groups["alpha"] == groups["beta"] != groups["gamma"]
        parent = await h.client.get_task(events[0].task_id)
        children = sum(c.usage.total_tokens for c in parent.children)
        assert parent.usage.total_tokens > children  # the judge's tokens count too


async def test_list_tools_shows_the_panel(tmp_path: Path) -> None:
    folder = agents(tmp_path, lead=LEAD, **MEMBERS)
    async with harness(tmp_path, [], agents_dir=folder) as h:
        tools = {t.name: t for t in await h.client.list_tools(agent="lead")}
        assert "three reviewers" in tools["panel.review"].description
        assert tools["panel.review"].category == "agents"
