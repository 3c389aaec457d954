from __future__ import annotations

import pytest

from agent.modes.router import choose_mode, is_multi_part
from agent.modes.text_react import Action, Final, parse
from records.execution import ExecutionMode
from records.plan import PlanProblems, parse_plan
from tools.builtin.calculator import Calculator
from tools.builtin.json_query import JsonQuery

TOOLS = {"calculator": Calculator().spec, "json_query": JsonQuery().spec}


@pytest.mark.parametrize(
    "task",
    [
        "1. fetch the page\n2. summarise it",
        "- compare prices\n- pick the cheapest",
        "First download the report, then extract the totals.",
        "Download the data. Clean it. Then draw a chart.",
        "Find the file. Read it. Count the words. Report the count.",
    ],
)
def test_multi_part_tasks(task: str) -> None:
    assert is_multi_part(task)
    assert choose_mode(task) is ExecutionMode.PLAN_AND_EXECUTE


@pytest.mark.parametrize(
    "task",
    ["What is 2+2?", "Summarise this text for me.", "Translate 'hello' to French. Keep it short."],
)
def test_single_tasks(task: str) -> None:
    assert not is_multi_part(task)
    assert choose_mode(task) is ExecutionMode.FUNCTION_CALLING
    assert choose_mode(task, tool_calling=False) is ExecutionMode.TEXT_REACT


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (
            'Thought: x\nAction: calculator\nAction Input: {"expression": "1"}',
            Action("calculator", {"expression": "1"}),
        ),
        (
            'Action: `calculator`\nAction Input: ```json\n{"expression": "2"}\n```',
            Action("calculator", {"expression": "2"}),
        ),
        ("Action: calculator\nAction Input: 3 * 4", Action("calculator", {"expression": "3 * 4"})),
        ('Action: calculator\nAction Input: "5"', Action("calculator", {"expression": "5"})),
        (
            'Action: [calculator]\nAction Input: {"expression": "6"} and then I wait',
            Action("calculator", {"expression": "6"}),
        ),
        ("Thought: done\nFinal Answer: 42\nmore lines", Final("42\nmore lines")),
        ("final answer:  yes", Final("yes")),
        (
            "Final Answer: a\nAction: calculator\nAction Input: {}",
            Final("a\nAction: calculator\nAction Input: {}"),
        ),
        ("I think the answer is 4", None),
        ("Final Answer:   ", None),
    ],
)
def test_react_parser(reply: str, expected: Action | Final | None) -> None:
    assert parse(reply, TOOLS) == expected


def test_react_parser_reports_unreadable_input() -> None:
    parsed = parse("Action: json_query\nAction Input: not json", TOOLS)
    assert isinstance(parsed, Action)
    assert parsed.arguments is None
    assert "not a JSON object" in parsed.problem


def test_plan_validation_orders_and_checks() -> None:
    plan = parse_plan(
        {
            "steps": [
                {"id": "c", "description": "c", "depends_on": ["a", "b"]},
                {
                    "id": "a",
                    "description": "a",
                    "tool": "calculator",
                    "arguments": {"expression": "1"},
                },
                {"id": "b", "description": "b", "estimated_seconds": "2.5"},
            ]
        },
        TOOLS,
    )
    assert [s.id for s in plan.steps] == ["a", "b", "c"]
    assert plan.estimated_total_seconds == 2.5


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ([], "JSON object"),
        ({"steps": []}, "no steps"),
        ({"steps": ["x"]}, "not an object"),
        ({"steps": [{"description": "x"}]}, "no id"),
        ({"steps": [{"id": "a"}]}, "no description"),
        (
            {"steps": [{"id": "a", "description": "x", "tool": "rm"}]},
            "unknown or unavailable tool 'rm'",
        ),
        ({"steps": [{"id": "a", "description": "x", "depends_on": ["z"]}]}, "unknown step 'z'"),
        ({"steps": [{"id": "a", "description": "x", "depends_on": "a"}]}, "list of step ids"),
        ({"steps": [{"id": "a", "description": "x", "arguments": [1]}]}, "must be an object"),
        (
            {"steps": [{"id": "a", "description": "x"}, {"id": "a", "description": "y"}]},
            "used twice",
        ),
        (
            {
                "steps": [
                    {"id": "a", "description": "x", "depends_on": ["b"]},
                    {"id": "b", "description": "y", "depends_on": ["a"]},
                ]
            },
            "cycle",
        ),
        ({"steps": [{"id": f"s{i}", "description": "x"} for i in range(51)]}, "at most 50"),
    ],
)
def test_plan_validation_problems(data: object, problem: str) -> None:
    with pytest.raises(PlanProblems, match=problem):
        parse_plan(data, TOOLS)


def test_replans_may_depend_on_completed_steps_but_not_reuse_their_ids() -> None:
    plan = parse_plan(
        {"steps": [{"id": "b", "description": "x", "depends_on": ["a"]}]},
        TOOLS,
        done=frozenset({"a"}),
        revision=2,
    )
    assert plan.revision == 2
    with pytest.raises(PlanProblems, match="used twice"):
        parse_plan({"steps": [{"id": "a", "description": "again"}]}, TOOLS, done=frozenset({"a"}))


@pytest.mark.parametrize(
    "task",
    [
        "首先查一下北京的天气，然后查一下上海的天气，最后比较两地的温度。",
        "第一步：下载数据。第二步：清洗数据。第三步：画图。",
        "先读取文件，接着统计行数，之后把结果写进报告。",
        "1、下载数据\n2、清洗数据\n3、画图",
        "（1）下载数据\n（2）清洗数据",
        "一、收集资料\n二、写总结",
        "First look up the weather in Paris, then in Rome, and finally compare them.",
    ],
)
def test_multi_step_tasks_are_read_in_chinese_and_english(task: str) -> None:
    assert is_multi_part(task)
    assert choose_mode(task) is ExecutionMode.PLAN_AND_EXECUTE


@pytest.mark.parametrize(
    "task", ["你好", "北京今天的天气怎么样？", "把这段话翻译成英文：我喜欢编程。", "hello there"]
)
def test_single_step_tasks_stay_single_step_in_chinese_and_english(task: str) -> None:
    assert not is_multi_part(task)
    assert choose_mode(task) is ExecutionMode.FUNCTION_CALLING
