"""Auto mode, through the real server and the fake model: the heuristic reads multi-step
tasks in Chinese and English, and a configured router model answers greetings directly,
picks plan-and-execute for multi-step tasks and names delegates."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent.llm.fakes.script import Script
from agentd.v1 import events_pb2, tasks_pb2
from tests.integration.harness import assert_well_formed, final, harness, kinds, of_kind

PE = tasks_pb2.EXECUTION_MODE_PLAN_AND_EXECUTE
FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
CHINESE_MULTI_STEP = "首先查一下北京的天气，然后查一下上海的天气，最后比较两地的温度。"
ENGLISH_MULTI_STEP = "First look up the weather in Paris, then in Rome, and finally compare them."
VERDICT = {"accuracy": 0.9, "completeness": 0.9, "relevance": 0.9, "logic": 0.9,
           "decision": "accept", "step_id": "", "feedback": ""}  # fmt: skip


def _plan_roles(answer: str) -> dict[str, Any]:
    steps = [{"id": "s1", "description": "查天气"}, {"id": "s2", "description": "比较"}]
    return {
        "planner": [{"json": {"steps": steps}, "repeat": -1}],
        "executor": [{"text": "晴，20度", "repeat": -1}],
        "critic": [{"json": VERDICT, "repeat": -1}],
        "synthesizer": [{"text": answer, "repeat": -1}],
    }


def _planned_and_reviewed(events: list[events_pb2.TaskEvent]) -> None:
    assert_well_formed(events)
    assert "plan_created" in kinds(events)
    assert of_kind(events, "reflection"), "the critic reviewed the plan's results"


async def test_the_heuristic_reads_multi_step_tasks_in_chinese_and_english(
    tmp_path: Path,
) -> None:
    script = Script.parse({"roles": _plan_roles("北京和上海都是晴天。")})
    async with harness(tmp_path, script) as h:
        chinese = await h.run(CHINESE_MULTI_STEP)
        english = await h.run(ENGLISH_MULTI_STEP)
        for events in (chinese, english):
            _planned_and_reviewed(events)
            assert (await h.client.get_task(events[0].task_id)).mode == PE
        assert final(chinese).text == "北京和上海都是晴天。"
        assert "route_chosen" not in kinds(chinese)  # no router model: no router call
        planner = next(r for r in h.llm.requests if r.get("response_format"))
        system = planner["messages"][0]["content"]
        assert "in the language of the user's task" in system


async def test_a_router_model_plans_answers_directly_and_names_delegates(tmp_path: Path) -> None:
    roles = _plan_roles("两地都是晴天。")
    roles["router"] = [
        {"match": "北京", "json": {"decision": "plan_and_execute", "reason": "多步骤"}},
        {"match": "Hi there", "json": {"decision": "answer", "answer": "Hello! How can I help?"}},
        {"match": "你好", "json": {"decision": "answer", "answer": "你好！有什么可以帮你？"}},
        {"match": "billing specialist",
         "json": {"decision": "delegate", "delegate": "billing", "reason": "asked for it"}},
        {"match": "joke", "text": "I am not sure.", "repeat": 2},
    ]  # fmt: skip
    roles["executor"] = [
        {"match": "billing specialist", "text": "Your invoice is paid."},
        {"match": "joke", "text": "A short joke."},
        *roles["executor"],
    ]
    async with harness(tmp_path, Script.parse({"roles": roles}), router_model="router-model") as h:
        planned = await h.run(CHINESE_MULTI_STEP)
        greeted = await h.run("Hi there!")
        greeted_zh = await h.run("你好")
        handed = await h.run("Please ask the billing specialist about my invoice")
        handed_task = await h.client.get_task(handed[0].task_id)
        unread = await h.run("Tell me a joke")
    # a Chinese multi-step task: the router picks plan-and-execute; a plan and a critic
    _planned_and_reviewed(planned)
    (route,) = of_kind(planned, "route_chosen")
    assert (route.decision, route.mode, route.reason) == (
        "plan_and_execute",
        "plan_and_execute",
        "多步骤",
    )
    assert final(planned).text == "两地都是晴天。"
    # greetings are answered directly, in their language, with no other model call
    for events, answer in (
        (greeted, "Hello! How can I help?"),
        (greeted_zh, "你好！有什么可以帮你？"),
    ):
        assert_well_formed(events)
        assert final(events).text == answer
        (route,) = of_kind(events, "route_chosen")
        assert route.decision == "answer"
        assert "plan_created" not in kinds(events)
        assert [u.role for u in of_kind(events, "usage")] == ["router"]
    # a request naming a specialist: the delegate is recorded (no delegation here), and
    # the task runs as the heuristic says
    (route,) = of_kind(handed, "route_chosen")
    assert (route.decision, route.delegate, route.handled) == ("delegate", "billing", False)
    assert final(handed).text == "Your invoice is paid."
    assert handed_task.mode == FC
    routed = [
        r
        for r in h.llm.requests
        if (r.get("response_format") or {}).get("json_schema", {}).get("name") == "route"
    ]
    # a router whose reply cannot be read (twice): the rule decides
    (route,) = of_kind(unread, "route_chosen")
    assert (route.decision, route.mode) == ("heuristic", "function_calling")
    assert final(unread).text == "A short joke."
    assert len(routed) == 6  # the unreadable router was asked twice
    assert {r["model"] for r in routed} == {"router-model"}
    h.llm.assert_complete()


FRONT_DESK = """\
id: front-desk
description: Answers customers and hands specialist work over
instructions: You are the front desk.
delegates: [billing]
"""
BILLING = """\
id: billing
description: Knows invoices and payments
instructions: You are the billing specialist.
mode: function_calling
"""


async def test_a_router_hands_a_task_to_the_delegate_it_names(tmp_path: Path) -> None:
    folder = tmp_path / "agents"
    folder.mkdir()
    (folder / "front-desk.yaml").write_text(FRONT_DESK)
    (folder / "billing.yaml").write_text(BILLING)
    roles = {
        "router": [
            {"match": "invoice", "json": {"decision": "delegate", "delegate": "billing",
                                          "reason": "billing work"}},
            {"match": "weather", "json": {"decision": "delegate", "delegate": "travel",
                                          "reason": "no such delegate"}},
        ],
        "executor": [
            {"match": "You are the billing specialist", "text": "Invoice 7 is paid."},
            {"match": "weather", "text": "Sunny."},
        ],
    }  # fmt: skip
    script = Script.parse({"roles": roles})
    async with harness(tmp_path, script, router_model="router-model", agents_dir=folder) as h:
        handed = await h.run("Is my invoice 7 paid?", agent="front-desk")
        children = await h.client.list_tasks(parent_task_id=handed[0].task_id)
        kept = await h.run("What is the weather?", agent="front-desk")
    # the named delegate takes the task as a child task; its answer is the task's
    assert_well_formed(handed)
    (route,) = of_kind(handed, "route_chosen")
    assert (route.decision, route.delegate, route.handled) == ("delegate", "billing", True)
    (started,) = of_kind(handed, "subtask_started")
    assert started.agent.startswith("billing@")
    assert final(handed).text == "Invoice 7 is paid."
    assert [c.task_id for c in children.tasks] == [started.child_task_id]
    assert children.tasks[0].status == tasks_pb2.TASK_STATUS_COMPLETED
    # a delegate the agent does not have is not handed to: the task runs here
    (route,) = of_kind(kept, "route_chosen")
    assert (route.decision, route.delegate, route.handled) == ("delegate", "travel", False)
    assert "subtask_started" not in kinds(kept)
    assert final(kept).text == "Sunny."
    h.llm.assert_complete()
