"""Each mode run directly on a TaskRun with scripted models: function calling, text ReAct,
plan-and-execute (with the planner and the critic), and the auto-mode router."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from agent import prompts
from agent.failures import ModelOutputInvalidError
from agent.limits import EngineConfig, LimitReached, ToolLimits
from agent.llm.roles import ModelRoles
from agent.llm.testing import FunctionModel, ScriptedModel, text, tool_calls
from agent.modes import critic, function_calling, plan_execute, planner, text_react
from agent.modes.router import choose_mode
from agent.running.answers import Outcome
from agent.tool_use.calls import UNKNOWN_OUTCOME
from core.errors import PlanInvalidError
from records import events as ev
from records.checkpoints import RunCheckpoint
from records.execution import ExecutionMode
from records.messages import Message, ModelResponse, ModelSettings, ToolCall, ToolDefinition
from records.mode_state import FunctionCallingState, PlanExecuteState, StepResult, TextReactState
from records.plan import Plan, PlanStep, parse_plan
from records.tasks import StopReason
from tests.unit.agent.runs import Env, checkpoint, kinds, make_env, of_type

SIX_SEVENS = {"expression": "6*7"}
CALC = ("calculator", SIX_SEVENS)


def _never(messages: object, tools: object, settings: object) -> ModelResponse:
    raise AssertionError("the model must not be asked")


def _step(
    step_id: str, description: str, tool: str = "", *after: str, **arguments: str
) -> dict[str, Any]:
    """One step of a plan as the planner writes it; `after`: the steps it depends on."""
    step: dict[str, Any] = {"id": step_id, "description": description, "depends_on": list(after)}
    if tool:
        step |= {"tool": tool, "arguments": arguments}
    return step


def _plan(*steps: dict[str, Any]) -> ModelResponse:
    return text(json.dumps({"steps": list(steps)}))


def _verdict(score: float, decision: str, feedback: str = "") -> ModelResponse:
    scores = dict.fromkeys(("accuracy", "completeness", "relevance", "logic"), score)
    return text(json.dumps({**scores, "decision": decision, "feedback": feedback}))


ACCEPT = _verdict(0.9, "accept")


def _roles(
    *,
    planner: Sequence[ModelResponse] = (),
    executor: Sequence[ModelResponse] = (),
    critic: Sequence[ModelResponse] = (),
    synthesizer: Sequence[ModelResponse] = (),
) -> tuple[ModelRoles, dict[str, ScriptedModel]]:
    models = {
        "planner": ScriptedModel(planner),
        "executor": ScriptedModel(executor),
        "critic": ScriptedModel(critic),
        "synthesizer": ScriptedModel(synthesizer),
    }
    roles = ModelRoles(
        FunctionModel(_never),
        planner=models["planner"],
        executor=models["executor"],
        critic=models["critic"],
        synthesizer=models["synthesizer"],
    )
    return roles, models


def _names(tools: Sequence[ToolDefinition]) -> list[str]:
    return [t.name for t in tools]


# -- function calling --------------------------------------------------------------------


async def test_function_calling_answers_directly(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    model = ScriptedModel([text("Forty-two.")])
    run = await env.run(model)

    outcome = await function_calling.run(run)

    assert outcome == Outcome("Forty-two.")
    events = await env.events(run)
    assert kinds(events) == ["step_started", "text_delta", "usage", "step_finished"]
    assert events[0] == ev.StepStarted("iteration-1", "reason and act", 1)
    finished = of_type(events, ev.StepFinished)[0]
    assert (finished.success, finished.output) == (True, "Forty-two.")
    (asked,) = model.calls
    assert asked.messages == (
        Message("system", prompts.FUNCTION_CALLING_SYSTEM),
        Message("user", "What is 6*7?"),
    )
    assert (_names(asked.tools), asked.settings.tool_choice) == (["calculator"], "auto")
    assert (run.task.current_step, run.task.total_steps) == (1, 10)


async def test_function_calling_calls_a_tool_then_answers(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    model = ScriptedModel([tool_calls(CALC), text("6*7 is 42.")])
    run = await env.run(model)

    outcome = await function_calling.run(run)

    assert outcome == Outcome("6*7 is 42.")
    events = await env.events(run)
    assert kinds(events) == [
        "step_started", "usage", "tool_call_started", "tool_call_finished", "step_finished",
        "step_started", "text_delta", "usage", "step_finished",
    ]  # fmt: skip
    assert of_type(events, ev.StepFinished)[0].output == "called calculator"
    call = ToolCall("call_1", "calculator", json.dumps(SIX_SEVENS))
    assert model.calls[1].messages[2:] == (
        Message("assistant", "", tool_calls=(call,)),
        Message("tool", "42", tool_call_id="call_1", name="calculator"),
    )
    saved = await env.saved(run)  # after the tool round, ready for iteration 2
    assert saved is not None
    assert saved.mode_state == FunctionCallingState(
        model.calls[1].messages, 2, True, ('calculator{"expression": "6*7"}',)
    )


async def test_the_last_iteration_withdraws_the_tools(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    model = ScriptedModel([tool_calls(CALC), text("It is 42.")])
    run = await env.run(model, max_iterations=2)

    outcome = await function_calling.run(run)

    assert (outcome.answer, outcome.stop_reason) == ("It is 42.", StopReason.MAX_ITERATIONS)
    assert "the iteration limit (2) was reached" in outcome.detail
    assert "tools were withdrawn for the last round" in outcome.detail
    last = model.calls[1]
    assert last.tools == ()
    assert last.messages[-1] == Message("user", prompts.LAST_ROUND)
    started = of_type(await env.events(run), ev.StepStarted)
    assert [s.description for s in started] == ["reason and act", "final answer"]


async def test_calls_asked_for_on_the_last_iteration_are_not_run(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    run = await env.run(ScriptedModel([tool_calls(CALC)]), max_iterations=1)

    with pytest.raises(LimitReached) as stopped:
        await function_calling.run(run)

    assert stopped.value.reason is StopReason.MAX_ITERATIONS
    assert stopped.value.detail == "no answer within 1 iterations"
    assert of_type(await env.events(run), ev.ToolCallStarted) == []


async def test_the_same_call_repeated_stops_the_loop(tmp_path: Path) -> None:
    env = make_env(tmp_path, EngineConfig(tools=ToolLimits(max_repeated_calls=3)))
    model = FunctionModel(lambda messages, tools, settings: tool_calls(CALC))
    run = await env.run(model)

    with pytest.raises(LimitReached) as stopped:
        await function_calling.run(run)

    assert stopped.value.reason is StopReason.REPEATED_TOOL_CALL
    assert stopped.value.detail == (
        "the model called calculator with the same arguments 3 times in a row"
    )
    assert len(model.calls) == 3
    assert len(of_type(await env.events(run), ev.ToolCallStarted)) == 2  # the third never ran


async def test_calls_beyond_the_per_reply_limit_are_dropped_with_a_note(tmp_path: Path) -> None:
    env = make_env(tmp_path, EngineConfig(tools=ToolLimits(max_tool_calls_per_turn=2)))
    three = tool_calls(
        ("calculator", {"expression": "1+1"}),
        ("calculator", {"expression": "2+2"}),
        ("calculator", {"expression": "3+3"}),
    )
    model = ScriptedModel([three, text("2, 4 and (not asked again) 6")])
    run = await env.run(model)

    await function_calling.run(run)

    started = of_type(await env.events(run), ev.ToolCallStarted)
    assert [s.arguments for s in started] == [{"expression": "1+1"}, {"expression": "2+2"}]
    assistant, first, second, note = model.calls[1].messages[2:]
    assert len(assistant.tool_calls) == 2
    assert [first.content, second.content] == ["2", "4"]
    assert note == Message("user", prompts.too_many_calls(2, 1))


async def test_an_empty_reply_is_asked_again(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    model = ScriptedModel([text(""), text("42")])
    run = await env.run(model)

    assert await function_calling.run(run) == Outcome("42")

    assert model.calls[1].messages[-2:] == (
        Message("assistant", ""),
        Message("user", prompts.EMPTY_REPLY),
    )
    finished = of_type(await env.events(run), ev.StepFinished)
    assert [(f.step_id, f.success) for f in finished] == [
        ("iteration-1", False),
        ("iteration-2", True),
    ]


async def test_a_step_over_the_step_timeout_stops_the_task(tmp_path: Path) -> None:
    env = make_env(tmp_path, EngineConfig(step_timeout_seconds=0.05))

    async def slow(
        messages: Sequence[Message], tools: Sequence[ToolDefinition], settings: ModelSettings
    ) -> ModelResponse:
        await asyncio.sleep(5)
        return text("too late")

    run = await env.run(FunctionModel(slow))

    with pytest.raises(LimitReached) as stopped:
        await function_calling.run(run)

    assert stopped.value.reason is StopReason.STEP_TIMEOUT
    assert stopped.value.detail == "iteration 1 took longer than 0.05 s"
    last = (await env.events(run))[-1]
    assert isinstance(last, ev.StepFinished)
    assert (last.step_id, last.success, last.output) == ("iteration-1", False, "timed out")


async def test_resuming_with_pending_calls_runs_them_before_asking_the_model(
    tmp_path: Path,
) -> None:
    env = make_env(tmp_path)
    call = ToolCall("call_1", "calculator", json.dumps(SIX_SEVENS))
    asked_before = (
        Message("system", prompts.FUNCTION_CALLING_SYSTEM),
        Message("user", "What is 6*7?"),
        Message("assistant", "", tool_calls=(call,)),
    )
    state = FunctionCallingState(asked_before, 1, False, ("calculator{}",), (call,))
    model = ScriptedModel([text("42")])
    run = await env.run(model, resumed=checkpoint(state))

    assert await function_calling.run(run) == Outcome("42")

    (asked,) = model.calls  # once, after the pending call
    assert asked.messages == (
        *asked_before,
        Message("tool", "42", tool_call_id="call_1", name="calculator"),
    )
    assert kinds(await env.events(run))[:4] == [
        "step_started", "tool_call_started", "tool_call_finished", "step_finished",
    ]  # fmt: skip


async def _crash_during_send(env: Env) -> RunCheckpoint:
    """Run function calling until the model's send_message call is under way; stop there, as
    a process that dies would; return the checkpoint it left."""
    model = ScriptedModel([tool_calls(("send_message", {"to": "bob"}))])
    run = await env.run(model, tools=("send_message",), task_id="task_crashed")
    sending = asyncio.Event()
    left: list[RunCheckpoint] = []

    async def hang() -> None:
        saved = await env.saved(run)
        assert saved is not None
        left.append(saved)
        sending.set()
        await asyncio.Event().wait()

    env.send.before_send = hang
    running = asyncio.create_task(function_calling.run(run))
    await asyncio.wait_for(sending.wait(), 5)
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    env.send.before_send = None
    return left[0]


async def test_a_call_cut_off_by_a_crash_is_not_repeated_on_resume(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    left = await _crash_during_send(env)
    assert isinstance(left.mode_state, FunctionCallingState)
    assert [c.name for c in left.mode_state.pending] == ["send_message"]  # saved before it ran
    assert [(k, e.finished) for k, e in left.journal.items()] == [("iteration-1/0", False)]

    model = ScriptedModel([text("I could not confirm the message was sent.")])
    run = await env.run(model, tools=("send_message",), resumed=left, task_id="task_crashed")
    outcome = await function_calling.run(run)

    assert outcome.answer == "I could not confirm the message was sent."
    assert env.send.sent == []  # neither process sent it
    (asked,) = model.calls
    assert asked.messages[-1].content == UNKNOWN_OUTCOME.format(tool="send_message")


# -- text ReAct ----------------------------------------------------------------------------


async def test_text_react_acts_then_answers(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    action = 'Thought: add them\nAction: calculator\nAction Input: {"expression": "2+3"}'
    model = ScriptedModel(
        [text(action + "\nObservation: 7 (made up)"), text("Thought: done\nFinal Answer: 5")]
    )
    run = await env.run(model, "Add 2 and 3.", mode=ExecutionMode.TEXT_REACT)

    assert await text_react.run(run) == Outcome("5")

    assert model.calls[0].settings.stop == ("Observation:",)
    assert model.calls[0].tools == ()
    assert model.calls[1].messages[-2:] == (
        Message("assistant", action),  # the made-up observation is not kept
        Message("user", "Observation: 5"),
    )
    started = of_type(await env.events(run), ev.ToolCallStarted)
    assert [(s.step_id, s.arguments) for s in started] == [("iteration-1", {"expression": "2+3"})]
    saved = await env.saved(run)
    assert saved is not None
    assert saved.mode_state == TextReactState(
        model.calls[1].messages, 2, recent=('calculator{"expression": "2+3"}',)
    )
    assert run.task.current_step == 2


async def test_text_react_stops_when_the_same_action_repeats(tmp_path: Path) -> None:
    env = make_env(tmp_path, EngineConfig(tools=ToolLimits(max_repeated_calls=3)))
    action = 'Action: calculator\nAction Input: {"expression": "2+3"}'
    model = FunctionModel(lambda messages, tools, settings: text(action))
    run = await env.run(model, "Add 2 and 3.", mode=ExecutionMode.TEXT_REACT)

    with pytest.raises(LimitReached) as stopped:
        await text_react.run(run)

    assert stopped.value.reason is StopReason.REPEATED_TOOL_CALL
    assert stopped.value.detail == (
        "the model called calculator with the same arguments 3 times in a row"
    )
    assert len(model.calls) == 3
    assert len(of_type(await env.events(run), ev.ToolCallStarted)) == 2  # the third never ran


async def test_text_react_corrects_once_then_fails_on_unparseable_replies(
    tmp_path: Path,
) -> None:
    env = make_env(tmp_path)
    model = ScriptedModel([text("It is probably 5."), text("Definitely 5.")])
    run = await env.run(model, "Add 2 and 3.", mode=ExecutionMode.TEXT_REACT)

    with pytest.raises(ModelOutputInvalidError):
        await text_react.run(run)

    assert model.calls[1].messages[-2:] == (
        Message("assistant", "It is probably 5."),
        Message("user", prompts.REACT_CORRECTION),
    )
    last = (await env.events(run))[-1]
    assert isinstance(last, ev.StepFinished)
    assert (last.success, last.output) == (False, "unparseable reply")


async def test_text_react_resumes_with_its_pending_action(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    action = 'Action: calculator\nAction Input: {"expression": "2+3"}'
    before = (
        Message("system", "..."),
        Message("user", "Add 2 and 3."),
        Message("assistant", action),
    )
    state = TextReactState(before, 1, "calculator", {"expression": "2+3"})
    model = ScriptedModel([text("Final Answer: 5")])
    run = await env.run(model, mode=ExecutionMode.TEXT_REACT, resumed=checkpoint(state))

    assert await text_react.run(run) == Outcome("5")

    (asked,) = model.calls  # the action ran first, without asking again
    assert asked.messages == (*before, Message("user", "Observation: 5"))


# -- plan and execute ----------------------------------------------------------------------


async def test_plan_execute_runs_steps_in_dependency_order_and_synthesises(
    tmp_path: Path,
) -> None:
    env = make_env(tmp_path)
    roles, models = _roles(
        planner=[
            _plan(
                _step("s3", "say the result", "", "s2"),
                _step("s2", "multiply the sum by 4", "calculator", "s1", expression="x*4"),
                _step("s1", "add 2 and 3", "calculator", expression="2+3"),
            )
        ],
        executor=[tool_calls(("calculator", {"expression": "5*4"})), text("The result is 20.")],
        critic=[ACCEPT],
        synthesizer=[text("(2+3)*4 = 20")],
    )
    run = await env.run(roles, "Add 2 and 3, then multiply by 4, then say the result.")

    assert await plan_execute.run(run) == Outcome("(2+3)*4 = 20")

    events = await env.events(run)
    created = of_type(events, ev.PlanCreated)[0]
    assert [s.id for s in created.plan.steps] == ["s1", "s2", "s3"]
    assert [(s.step_id, s.index) for s in of_type(events, ev.StepStarted)] == [
        ("s1", 1),
        ("s2", 2),
        ("s3", 3),
    ]
    calls = of_type(events, ev.ToolCallStarted)
    assert [(c.step_id, c.arguments) for c in calls] == [
        ("s1", {"expression": "2+3"}),  # the plan's own arguments
        ("s2", {"expression": "5*4"}),  # filled in by the executor from s1's result
    ]
    assert [f.output for f in of_type(events, ev.StepFinished)] == ["5", "20", "The result is 20."]
    fill_in = models["executor"].calls[0]
    assert (_names(fill_in.tools), fill_in.settings.tool_choice) == (["calculator"], "calculator")
    assert "[s1] add 2 and 3: 5" in fill_in.messages[-1].content
    assert "[s2] multiply the sum by 4: 20" in models["executor"].calls[1].messages[-1].content
    verdict = of_type(events, ev.ReflectionVerdict)[0]
    assert (verdict.decision, verdict.passed) == ("accept", True)
    assert "[s3] say the result -> The result is 20." in (
        models["synthesizer"].calls[0].messages[-1].content
    )
    assert (run.task.current_step, run.task.total_steps) == (3, 3)
    saved = await env.saved(run)
    assert saved is not None
    assert isinstance(saved.mode_state, PlanExecuteState)
    assert [(r.step.id, r.success) for r in saved.mode_state.results] == [
        ("s1", True),
        ("s2", True),
        ("s3", True),
    ]


async def test_a_critic_replan_revises_the_plan(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    add = _step("s1", "add", "calculator", expression="2+3")
    times = _step("s2", "multiply", "calculator", expression="5*4")
    roles, models = _roles(
        planner=[_plan(add), _plan(times)],
        critic=[_verdict(0.2, "replan", "multiply as well"), ACCEPT],
        synthesizer=[text("20")],
    )
    run = await env.run(roles, "Add 2 and 3, then multiply by 4.")

    assert await plan_execute.run(run) == Outcome("20")

    events = await env.events(run)
    plans = [e for e in events if isinstance(e, ev.PlanCreated | ev.PlanRevised)]
    assert [type(p) for p in plans] == [ev.PlanCreated, ev.PlanRevised]
    revised = plans[1]
    assert isinstance(revised, ev.PlanRevised)
    assert revised.reason == "the critic asked for a new plan: multiply as well"
    assert ([s.id for s in revised.plan.steps], revised.plan.revision) == (["s2"], 2)
    replan = models["planner"].calls[1].messages[-1].content
    assert "the critic asked for a new plan: multiply as well" in replan
    assert "[s1] add -> 5" in replan  # what was done already
    assert [v.decision for v in of_type(events, ev.ReflectionVerdict)] == ["replan", "accept"]
    assert [c.arguments for c in of_type(events, ev.ToolCallStarted)] == [
        {"expression": "2+3"},
        {"expression": "5*4"},
    ]
    assert run.task.total_steps == 2  # one done, one in the revised plan


async def test_a_failed_step_sends_the_work_back_to_the_planner(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    divide = _step("s1", "divide", "calculator", expression="1/0")
    fixed = _step("s1", "divide", "calculator", expression="1/2")
    roles, models = _roles(
        planner=[_plan(divide), _plan(fixed)], critic=[ACCEPT], synthesizer=[text("1/2")]
    )
    run = await env.run(roles, "Divide 1 by something.")

    assert await plan_execute.run(run) == Outcome("1/2")

    events = await env.events(run)
    assert of_type(events, ev.PlanRevised)[0].reason == "step s1 failed: division by zero"
    assert [(f.step_id, f.success) for f in of_type(events, ev.StepFinished)] == [
        ("s1", False),
        ("s1", True),
    ]
    assert len(models["critic"].calls) == 1  # the failure needed no critic


async def test_plan_execute_runs_a_given_plan_without_asking_the_planner(
    tmp_path: Path,
) -> None:
    env = make_env(tmp_path)
    roles, models = _roles(
        executor=[text("hello")],
        critic=[ACCEPT],
        synthesizer=[text("5, and hello")],
    )
    run = await env.run(roles, "Add 2 and 3 and say hello.")
    given = parse_plan(
        {"steps": [
            {"id": "add", "description": "add", "tool": "calculator",
             "arguments": {"expression": "2+3"}},
            {"id": "hi", "description": "say hello", "depends_on": ["add"]},
        ]},
        run.tools.specs,
    )  # fmt: skip
    run.task.plan = given  # as the engine stores a caller's plan when it accepts the task

    assert await plan_execute.run(run) == Outcome("5, and hello")

    events = await env.events(run)
    assert [e.plan for e in of_type(events, ev.PlanCreated)] == [given]
    assert of_type(events, ev.PlanRevised) == []
    assert models["planner"].calls == []
    assert [s.step_id for s in of_type(events, ev.StepStarted)] == ["add", "hi"]


async def test_plan_execute_resumes_without_redoing_completed_steps(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    add = PlanStep("s1", "add", "calculator", {"expression": "2+3"})
    times = PlanStep("s2", "multiply", "calculator", {"expression": "5*4"})
    state = PlanExecuteState(
        Plan((add, times)), (StepResult(add, True, "5"),), 1, 0, ("s1",), 1, ""
    )
    roles, models = _roles(critic=[ACCEPT], synthesizer=[text("5, then 20")])
    run = await env.run(roles, resumed=checkpoint(state))

    assert await plan_execute.run(run) == Outcome("5, then 20")

    events = await env.events(run)
    assert of_type(events, ev.PlanCreated) == []  # the planner was not asked again
    assert [(s.step_id, s.index) for s in of_type(events, ev.StepStarted)] == [("s2", 2)]
    assert [c.step_id for c in of_type(events, ev.ToolCallStarted)] == ["s2"]
    reviewed = models["critic"].calls[0].messages[-1].content
    assert "[s1] add -> 5\n[s2] multiply -> 20" in reviewed


async def test_each_step_result_is_checkpointed_as_soon_as_the_step_finishes(
    tmp_path: Path,
) -> None:
    env = make_env(tmp_path)
    roles, _ = _roles(
        planner=[
            _plan(
                _step("add", "add", "calculator", expression="2+3"),
                _step("tell", "tell bob", "send_message", to="bob"),
            )
        ],
        critic=[ACCEPT],
        synthesizer=[text("5, and bob knows")],
    )
    run = await env.run(roles, tools=("calculator", "send_message"))
    seen: list[tuple[str, ...]] = []

    async def look() -> None:  # inside "tell", while its batch is still running
        await asyncio.sleep(0.2)
        saved = await env.saved(run)
        assert saved is not None
        assert isinstance(saved.mode_state, PlanExecuteState)
        seen.append(tuple(r.step.id for r in saved.mode_state.results))

    env.send.before_send = look
    await plan_execute.run(run)

    assert seen == [("add",)]


def _counting_executor(peak: list[int]) -> FunctionModel:
    """An executor that answers after a moment; `peak[0]`: the most steps it ran at once."""
    running = [0]

    async def step(
        messages: Sequence[Message], tools: Sequence[ToolDefinition], settings: ModelSettings
    ) -> ModelResponse:
        running[0] += 1
        peak[0] = max(peak[0], running[0])
        await asyncio.sleep(0.05)
        running[0] -= 1
        return text("done")

    return FunctionModel(step)


async def test_concurrent_plan_steps_are_bounded_by_max_concurrent_tool_calls(
    tmp_path: Path,
) -> None:
    env = make_env(tmp_path, EngineConfig(tools=ToolLimits(max_concurrent_tool_calls=2)))
    peak = [0]
    roles, _ = _roles(
        planner=[_plan(*(_step(f"s{i}", f"part {i}") for i in range(4)))],
        critic=[ACCEPT],
        synthesizer=[text("all parts")],
    )
    roles = replace(roles, executor=_counting_executor(peak))
    run = await env.run(roles)

    assert await plan_execute.run(run) == Outcome("all parts")

    assert peak[0] == 2


async def test_a_step_that_stops_the_task_leaves_no_other_step_running(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    roles, _ = _roles(
        planner=[
            _plan(
                _step("think", "think it over"),
                _step("tell", "tell bob", "send_message", to="bob"),
            )
        ],
        executor=[text("half a thought", prompt_tokens=100)],  # overspends the budget
    )

    async def dawdle() -> None:
        await asyncio.sleep(0.1)

    env.send.before_send = dawdle
    run = await env.run(roles, tools=("send_message",), budget=50)

    with pytest.raises(LimitReached) as stopped:
        await plan_execute.run(run)
    assert stopped.value.reason is StopReason.TOKEN_BUDGET
    written, sent = len(await env.events(run)), list(env.send.sent)
    await asyncio.sleep(0.3)

    assert (len(await env.events(run)), env.send.sent) == (written, sent)


# -- planner, critic, router -------------------------------------------------------------


async def test_make_plan_repairs_a_bad_first_answer(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    roles, models = _roles(
        planner=[text("Sure! Here is my plan: first add."), _plan(_step("a", "x"))]
    )
    run = await env.run(roles)

    plan = await planner.make_plan(run)

    assert plan == Plan((PlanStep("a", "x"),))
    assert models["planner"].calls[1].messages[-1] == Message(
        "user", prompts.plan_repair(["the reply is not valid JSON"])
    )


async def test_make_plan_rejects_an_invalid_plan_after_its_retry(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    bad = _plan(_step("s1", "wipe", "rm_rf"))
    roles, models = _roles(planner=[bad, bad])
    run = await env.run(roles)

    with pytest.raises(PlanInvalidError) as refused:
        await planner.make_plan(run)

    assert refused.value.problems == [
        "step 's1': unknown or unavailable tool 'rm_rf'; available: calculator"
    ]
    assert models["planner"].remaining == 0  # asked twice, no more


async def test_an_unreadable_critic_accepts_and_says_so(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    roles, models = _roles(critic=[text("Looks great!"), text("Really great.")])
    run = await env.run(roles)

    verdict = await critic.review(run, "[s1] add -> 5", ["s1"], "review-final")

    assert (verdict.decision, verdict.passed) == ("accept", True)
    assert models["critic"].calls[1].messages[-1].content == "Reply with the JSON verdict only."
    error = of_type(await env.events(run), ev.ErrorOccurred)[0]
    assert (error.reason, error.fatal, error.step_id) == (
        "MODEL_OUTPUT_INVALID",
        False,
        "review-final",
    )


@pytest.mark.parametrize(
    ("task", "tool_calling", "mode"),
    [
        ("What is 6*7?", True, ExecutionMode.FUNCTION_CALLING),
        ("What is 6*7?", False, ExecutionMode.TEXT_REACT),
        ("1. fetch the rates\n2. convert 10 EUR", True, ExecutionMode.PLAN_AND_EXECUTE),
        ("First add 2 and 3, then double it.", False, ExecutionMode.PLAN_AND_EXECUTE),
    ],
)
def test_choose_mode(task: str, tool_calling: bool, mode: ExecutionMode) -> None:
    assert choose_mode(task, tool_calling) is mode
