"""TaskRun and its ToolCalls, driven directly: model calls (streaming, usage, the token
budget, the size cap), plans, checkpoints, resume states, and tool calls (refusals, the
concurrency bound, the crash journal, approvals)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from agent.failures import WaitExpiredError
from agent.limits import EngineConfig, LimitReached, ToolLimits, WaitPolicy
from agent.llm import sanitize
from agent.llm.testing import FunctionModel, ScriptedModel, text
from agent.parked import Parked
from agent.tool_use.calls import UNKNOWN_OUTCOME
from core.errors import TaskNotFoundError
from records import events as ev
from records.checkpoints import JournalEntry
from records.messages import Message, ModelResponse, ToolCall
from records.mode_state import FunctionCallingState, PlanExecuteState, StepResult, TextReactState
from records.plan import Plan, PlanStep
from records.tasks import StopReason, TaskStatus, TokenUsage
from records.tools.outcomes import ToolCallError, ToolErrorKind
from records.waits import WaitAction, WaitKind, WaitState
from tests.unit.agent.runs import (
    PRINCIPAL,
    checkpoint,
    joined,
    kinds,
    make_env,
    of_type,
)

ASK = [Message("user", "What is 6*7?")]
PLAN = Plan((PlanStep("s1", "add", "calculator", {"expression": "2+3"}), PlanStep("s2", "say")))


def _never(messages: object, tools: object, settings: object) -> ModelResponse:
    raise AssertionError("the model must not be asked")


NEVER = FunctionModel(_never)

# -- model calls -------------------------------------------------------------------------


async def test_model_streams_deltas_as_events_then_reports_usage(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    model = ScriptedModel(
        [
            text("The answer is 42.", reasoning="six sevens", prompt_tokens=7, completion_tokens=3),
            text("Still 42.", prompt_tokens=4, completion_tokens=2),
        ]
    )
    run = await env.run(model)

    first = await run.model("executor", "iteration-1", ASK)
    events = await env.events(run)
    assert first.text == "The answer is 42."
    assert kinds(events) == ["reasoning_delta", "text_delta", "usage"]
    assert joined(events, ev.ReasoningDelta) == "six sevens"
    assert joined(events, ev.TextDelta) == "The answer is 42."
    assert {e.step_id for e in of_type(events, ev.TextDelta)} == {"iteration-1"}
    assert events[-1] == ev.UsageReported(
        "iteration-1", "executor", TokenUsage(7, 3), TokenUsage(7, 3), "scripted"
    )

    await run.model("critic", "review-1", ASK, stream=False)
    events = await env.events(run)
    assert kinds(events)[3:] == ["usage"]  # not streamed: no deltas
    assert events[-1] == ev.UsageReported(
        "review-1", "critic", TokenUsage(4, 2), TokenUsage(11, 5), "scripted"
    )
    assert run.task.usage == TokenUsage(11, 5)
    assert (await env.store.get(PRINCIPAL.tenant, run.task.task_id)).last_sequence == len(events)


async def test_model_is_not_asked_once_the_budget_is_spent(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    model = ScriptedModel([text("a", prompt_tokens=10, completion_tokens=5), text("b")])
    run = await env.run(model, budget=15)

    await run.model("executor", "iteration-1", ASK)  # exactly the budget: allowed
    with pytest.raises(LimitReached) as stopped:
        await run.model("executor", "iteration-2", ASK)

    assert stopped.value.reason is StopReason.TOKEN_BUDGET
    assert stopped.value.detail == "the token budget of 15 tokens is used up"
    assert model.remaining == 1  # the second call never reached the model
    assert len(of_type(await env.events(run), ev.UsageReported)) == 1


async def test_a_call_that_overspends_the_budget_stops_with_its_reply_as_a_note(
    tmp_path: Path,
) -> None:
    env = make_env(tmp_path)
    run = await env.run(ScriptedModel([text("partly done", prompt_tokens=10)]), budget=12)

    with pytest.raises(LimitReached) as stopped:
        await run.model("executor", "iteration-1", ASK)

    assert stopped.value.reason is StopReason.TOKEN_BUDGET
    assert "(15 spent)" in stopped.value.detail
    assert run.transcript.notes == ["[executor, last reply before the budget ran out] partly done"]
    assert run.task.usage == TokenUsage(10, 5)
    usage = of_type(await env.events(run), ev.UsageReported)
    assert [u.task_total for u in usage] == [TokenUsage(10, 5)]  # counted before stopping


async def test_a_call_the_endpoint_did_not_count_is_estimated_and_the_budget_holds(
    tmp_path: Path,
) -> None:
    env = make_env(tmp_path)
    silent = text("x" * 400, prompt_tokens=0, completion_tokens=0)  # no usage reported
    model = ScriptedModel([silent, silent])
    run = await env.run(model, budget=200)

    await run.model("executor", "iteration-1", [Message("user", "y" * 200)])
    with pytest.raises(LimitReached) as stopped:
        await run.model("executor", "iteration-2", [Message("user", "y" * 200)])

    assert stopped.value.reason is StopReason.TOKEN_BUDGET
    assert "the prompt alone (54 tokens)" in stopped.value.detail  # 46 left: never sent
    usage = of_type(await env.events(run), ev.UsageReported)
    assert [u.estimated for u in usage] == [True]
    # 200 characters and a message's framing in, 400 characters out: 54 + 100 tokens.
    assert usage[0].call == TokenUsage(54, 100)
    assert run.task.usage == TokenUsage(54, 100)
    assert model.remaining == 1


def _honest(counted: list[int]) -> FunctionModel:
    """An endpoint that counts the prompt as agentd does and stops its reply at the limit
    asked (`max_tokens`), as every endpoint does; it would say 1,000 tokens if let."""

    def reply(messages: Any, tools: Any, settings: Any) -> ModelResponse:
        limit = settings.max_tokens or 1_000
        counted.append(limit)
        prompt = sum(4 + len(m.content) // 4 for m in messages)
        return text("z" * 4 * min(limit, 1_000), prompt_tokens=prompt, completion_tokens=limit)

    return FunctionModel(reply)


async def test_a_call_is_capped_to_the_budget_left_after_its_prompt(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    limits: list[int] = []
    run = await env.run(_honest(limits), budget=140)
    run.task.usage = TokenUsage(30, 10)  # 100 tokens of the budget are left

    await run.model("executor", "iteration-1", ASK)

    assert run.task.usage.total_tokens <= 140  # never past the budget
    assert limits[0] < 100  # the reply limit left room for the prompt


async def test_a_prompt_that_alone_is_over_what_is_left_is_never_sent(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    run = await env.run(NEVER, budget=100)
    run.task.usage = TokenUsage(60, 20)  # 20 tokens left: less than the prompt

    with pytest.raises(LimitReached) as stopped:
        await run.model("executor", "iteration-1", [Message("user", "y" * 400)])

    assert stopped.value.reason is StopReason.TOKEN_BUDGET
    assert "the prompt alone" in stopped.value.detail
    assert run.task.usage == TokenUsage(60, 20)  # nothing more recorded


async def test_a_reply_over_the_size_cap_is_cut(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    huge = "word " * (sanitize.MAX_REPLY_CHARS // 5 + 100)
    run = await env.run(FunctionModel(lambda messages, tools, settings: text(huge)))

    response = await run.model("executor", "iteration-1", ASK)

    assert response.text == huge[: sanitize.MAX_REPLY_CHARS] + sanitize.CUT_NOTE
    streamed = joined(await env.events(run), ev.TextDelta)
    assert streamed == huge[: sanitize.MAX_REPLY_CHARS]  # the rest was never sent


# -- plans, checkpoints, resume states ---------------------------------------------------------


async def test_set_plan_emits_plan_created_then_plan_revised(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    run = await env.run(NEVER)
    revised = Plan((PlanStep("s3", "check"),), revision=2)

    await run.transcript.set_plan(PLAN)
    run.task.current_step = 1
    await run.transcript.set_plan(revised, "s2 failed")

    assert await env.events(run) == [ev.PlanCreated(PLAN), ev.PlanRevised(revised, "s2 failed")]
    stored = await env.store.get(PRINCIPAL.tenant, run.task.task_id)
    assert stored.plan == revised
    assert stored.total_steps == 2  # one done under the first plan, one to go


async def test_checkpoint_saves_the_mode_state_and_the_journal_when_durable(
    tmp_path: Path,
) -> None:
    env = make_env(tmp_path)
    run = await env.run(NEVER, tools=("send_message",))
    state = TextReactState((Message("user", "hi"),), 2)
    await run.tools.call("iteration-1", "send_message", {"to": "bob"}, key="iteration-1/action")
    run.task.current_step = 1

    assert run.state.durable
    await run.checkpoint(state)
    await run.checkpoint()  # no new state: the last one is kept

    saved = await env.saved(run)
    assert saved is not None
    assert saved.mode_state == state
    assert saved.principal == PRINCIPAL
    assert saved.completed_steps == 1
    assert saved.notes == ("send_message({'to': 'bob'}) -> sent to bob",)
    (entry,) = saved.journal.values()
    assert (entry.tool_name, entry.finished, entry.ok, entry.text) == (
        "send_message",
        True,
        True,
        "sent to bob",
    )
    assert run.state.resume_state() is None  # still a new run: it resumed from nothing


@pytest.mark.parametrize("why", ["no checkpoint store", "not persisted"])
async def test_checkpoint_saves_nothing_unless_durable(tmp_path: Path, why: str) -> None:
    env = make_env(tmp_path, durable=why != "no checkpoint store")
    run = await env.run(NEVER, tools=("send_message",), persist=why != "not persisted")

    await run.checkpoint(TextReactState((), 1))
    result = await run.tools.call("iteration-1", "send_message", {"to": "bob"}, key="k")

    assert not run.state.durable
    assert result.ok
    assert run.tools.journal == {}  # nothing to resume from: not journalled either
    if env.checkpoints is not None:
        assert await env.checkpoints.load(PRINCIPAL.tenant, run.task.task_id) is None


async def test_a_run_that_does_not_persist_writes_no_events_and_no_task(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    run = await env.run(ScriptedModel([text("42")]), persist=False)

    await run.model("executor", "iteration-1", ASK)
    await run.transcript.set_plan(PLAN)
    calculated = await run.tools.call("plan", "calculator", {"expression": "6*7"})

    assert calculated.text == "42"
    assert run.task.last_sequence == 0
    with pytest.raises(TaskNotFoundError):  # never stored, never written to
        await env.store.get(PRINCIPAL.tenant, run.task.task_id)


async def test_resume_state_returns_the_typed_state_and_the_notes(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    state = FunctionCallingState((Message("user", "q"),), 3, True, ("calculator{}",))
    resumed = checkpoint(state, notes=("calculator(...) -> 42",))

    run = await env.run(NEVER, resumed=resumed)

    assert run.state.resume_state() == state
    assert run.transcript.notes == ["calculator(...) -> 42"]


def _legacy(mode: str) -> tuple[dict[str, Any], object]:
    """A dict mode state as earlier versions saved it, and the typed state it means."""
    messages = [Message("system", "s"), Message("user", "q")]
    call = ToolCall("call_1", "calculator", '{"expression": "2+3"}')
    step = PlanStep("s1", "add", "calculator", {"expression": "2+3"})
    if mode == "function_calling":
        return (
            {"messages": messages, "iteration": 2, "used_tools": True,
             "recent": ["calculator{}"], "pending": (call,)},
            FunctionCallingState(tuple(messages), 2, True, ("calculator{}",), (call,)),
        )  # fmt: skip
    if mode == "text_react":
        return (
            {"messages": messages, "iteration": 3, "tool": "calculator",
             "arguments": {"expression": "2+3"}, "problem": ""},
            TextReactState(tuple(messages), 3, "calculator", {"expression": "2+3"}, ""),
        )  # fmt: skip
    return (
        {"plan": Plan((step,)), "iterations": 1, "corrections": 0, "since_review": ["s1"],
         "index": 1, "replan_reason": "",
         "results": [{"step": step, "success": True, "output": "5"}]},
        PlanExecuteState(Plan((step,)), (StepResult(step, True, "5"),), 1, 0, ("s1",), 1, ""),
    )  # fmt: skip


@pytest.mark.parametrize("mode", ["function_calling", "text_react", "plan_execute"])
async def test_resume_state_converts_a_legacy_dict_checkpoint(tmp_path: Path, mode: str) -> None:
    env = make_env(tmp_path)
    legacy, expected = _legacy(mode)

    run = await env.run(NEVER, resumed=checkpoint(legacy))

    assert run.state.resume_state() == expected


async def test_resume_state_of_an_empty_legacy_checkpoint_is_none(tmp_path: Path) -> None:
    env = make_env(tmp_path)  # before any mode saved a state, earlier versions saved {}
    run = await env.run(NEVER, resumed=checkpoint({}))
    assert run.state.resume_state() is None


# -- tool calls --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "rule"), [("rm_rf", "none"), ("current_time", "task:tool-not-offered")]
)
async def test_a_tool_not_offered_is_refused_as_a_result_and_audited(
    tmp_path: Path, tool: str, rule: str
) -> None:
    env = make_env(tmp_path)
    run = await env.run(NEVER)

    result = await run.tools.call("iteration-1", tool, {"x": 1})

    assert result.error == ToolCallError(ToolErrorKind.FAILED, result.text)
    assert result.text == (
        f"not called: tool {tool!r} is not available to this task; available: calculator"
    )
    events = await env.events(run)
    assert kinds(events) == ["tool_call_started", "tool_call_finished"]
    assert of_type(events, ev.ToolCallFinished)[0].text == result.text
    (record,) = env.audit.records
    assert (record.tool_name, record.decision, record.rule, record.task_id) == (
        tool,
        "denied",
        rule,
        run.task.task_id,
    )


async def test_bad_arguments_are_not_called(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    run = await env.run(NEVER)

    result = await run.tools.call(
        "iteration-1", "calculator", None, bad_arguments="arguments must be a JSON object"
    )

    assert result.text == "not called: arguments must be a JSON object"
    assert result.error == ToolCallError(ToolErrorKind.FAILED, result.text)
    assert env.audit.records == []  # the registry never saw it
    assert run.transcript.notes == [
        "calculator(None) -> error: not called: arguments must be a JSON object"
    ]


async def test_a_calculator_call_emits_started_and_finished_with_the_text_the_model_sees(
    tmp_path: Path,
) -> None:
    env = make_env(tmp_path)
    run = await env.run(NEVER)

    result = await run.tools.call("iteration-1", "calculator", {"expression": "6*7"})

    assert (result.ok, result.text, result.data["value"]) == (True, "42", 42)
    started, finished = await env.events(run)
    assert started == ev.ToolCallStarted(
        result.call_id, "iteration-1", "calculator", {"expression": "6*7"}
    )
    assert isinstance(finished, ev.ToolCallFinished)
    assert (finished.call_id, finished.text, finished.error) == (result.call_id, "42", None)
    assert finished.result == result.data
    assert run.transcript.notes == ["calculator({'expression': '6*7'}) -> 42"]
    assert [(r.call_id, r.outcome) for r in env.audit.records] == [(result.call_id, "ok")]


async def test_failed_and_refused_calls_are_results_not_exceptions(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    run = await env.run(NEVER)

    failed, invalid = await run.tools.call_all(
        "iteration-1", [("calculator", {"expression": "1/0"}, ""), ("calculator", {"x": 1}, "")]
    )

    assert failed.error == ToolCallError(ToolErrorKind.FAILED, "division by zero")
    assert failed.text == "division by zero"
    assert invalid.text.startswith("refused (TOOL_ARGUMENTS_INVALID): invalid arguments")
    finished = of_type(await env.events(run), ev.ToolCallFinished)
    assert sorted(f.text for f in finished) == sorted([failed.text, invalid.text])


@pytest.mark.parametrize("bound", [1, 3])
async def test_calls_run_concurrently_bounded_by_max_concurrent_tool_calls(
    tmp_path: Path, bound: int
) -> None:
    env = make_env(tmp_path, EngineConfig(tools=ToolLimits(max_concurrent_tool_calls=bound)))
    run = await env.run(NEVER, tools=("slow",))

    results = await run.tools.call_all("iteration-1", [("slow", {"n": n}, "") for n in range(6)])

    assert env.slow.peak == bound
    assert [r.text for r in results] == [f"slow {n}" for n in range(6)]  # in call order


async def test_a_non_idempotent_call_is_journalled_before_it_runs(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    run = await env.run(NEVER, tools=("send_message",))
    during: list[dict[str, JournalEntry]] = []

    async def look() -> None:
        saved = await env.saved(run)
        assert saved is not None
        during.append(saved.journal)

    env.send.before_send = look
    result = await run.tools.call("iteration-1", "send_message", {"to": "bob"}, key="iteration-1/0")

    assert during == [
        {"iteration-1/0": JournalEntry(result.call_id, "send_message", finished=False)}
    ]
    after = await env.saved(run)
    assert after is not None
    assert after.journal == {
        "iteration-1/0": JournalEntry(
            result.call_id, "send_message", True, True, "sent to bob", {"sent_to": "bob"}
        )
    }
    assert env.send.sent == ["bob"]


async def test_a_resumed_run_reuses_a_finished_journal_entry(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    entry = JournalEntry("call_earlier", "send_message", True, True, "sent to bob", {"x": 1})
    resumed = checkpoint(None, journal={"iteration-1/0": entry})
    run = await env.run(NEVER, tools=("send_message",), resumed=resumed)

    result = await run.tools.call("iteration-1", "send_message", {"to": "bob"}, key="iteration-1/0")

    assert (result.call_id, result.ok, result.text, result.data) == (
        "call_earlier",
        True,
        "sent to bob",
        {"x": 1},
    )
    assert env.send.sent == []  # not sent twice
    assert await env.events(run) == []  # its events were written by the first process


async def test_a_resumed_run_reports_an_unfinished_call_as_outcome_unknown(
    tmp_path: Path,
) -> None:
    env = make_env(tmp_path)
    cut_off = JournalEntry("call_earlier", "send_message", finished=False)
    run = await env.run(
        NEVER, tools=("send_message",), resumed=checkpoint(None, journal={"k": cut_off})
    )

    result = await run.tools.call("iteration-1", "send_message", {"to": "bob"}, key="k")

    text_ = UNKNOWN_OUTCOME.format(tool="send_message")
    assert result.error == ToolCallError(ToolErrorKind.OUTCOME_UNKNOWN, text_)
    assert (result.call_id, result.text) == ("call_earlier", text_)
    assert env.send.sent == []
    assert await env.events(run) == [
        ev.ToolCallFinished("call_earlier", "send_message", None, result.error, 0.0, text_)
    ]
    saved = await env.saved(run)
    assert saved is not None
    assert saved.journal == {"k": JournalEntry("call_earlier", "send_message", True, False, text_)}


@pytest.mark.parametrize("approved", [True, False])
async def test_a_call_needing_approval_parks_until_decided_then_runs_under_its_call_id(
    tmp_path: Path, approved: bool
) -> None:
    env = make_env(tmp_path, approval_tools=["calculator"])
    run = await env.run(NEVER)

    with pytest.raises(Parked) as parked:
        await run.tools.call("iteration-1", "calculator", {"expression": "6*7"}, key="i1/0")
    (asked,) = of_type(await env.events(run), ev.ApprovalRequested)
    assert [(w.kind, w.slot, w.person) for w in parked.value.waits] == [
        (WaitKind.APPROVAL, asked.call_id, True)
    ]
    assert (await env.store.get(PRINCIPAL.tenant, run.task.task_id)).status is (
        TaskStatus.INPUT_REQUIRED
    )
    entry = run.tools.journal["i1/0"]  # what the woken run makes again
    assert (entry.call_id, entry.waiting, entry.arguments) == (
        asked.call_id,
        asked.call_id,
        {"expression": "6*7"},
    )
    wait = await env.waits.get(run.task.task_id, asked.call_id)
    assert wait is not None
    assert (wait.kind, wait.tool_name, wait.state) == (
        WaitKind.APPROVAL,
        "calculator",
        WaitState.OPEN,
    )
    assert wait.deadline_at is not None  # the task's wait limit

    comment = "ok" if approved else "not today"
    await env.answer(run, asked.call_id, WaitKind.APPROVAL, approved=approved, comment=comment)
    woken = await env.woken(run, NEVER)
    result = await woken.tools.call("iteration-1", "calculator", None, key="i1/0")

    assert result.call_id == asked.call_id  # the same call
    if approved:
        assert (result.ok, result.text) == (True, "42")
    else:
        assert result.error == ToolCallError(ToolErrorKind.REJECTED, result.text)
        assert result.text == "rejected by carol: not today"
    events = await env.events(woken)
    assert kinds(events) == [
        "tool_call_started",
        "status_changed",
        "approval_requested",
        "approval_decided",
        "status_changed",
        "tool_call_finished",
    ]
    waiting, running = of_type(events, ev.StatusChanged)
    assert (waiting.previous, waiting.current) == (TaskStatus.RUNNING, TaskStatus.INPUT_REQUIRED)
    assert (running.previous, running.current) == (TaskStatus.INPUT_REQUIRED, TaskStatus.RUNNING)
    label = "approved" if approved else "rejected"
    assert running.detail == f"{label} by carol"
    assert (asked.tool_name, asked.arguments) == ("calculator", {"expression": "6*7"})
    decided = of_type(events, ev.ApprovalDecided)[0]
    assert (decided.decision, decided.decided_by) == (
        "approve" if approved else "reject",
        "carol",
    )
    assert (await env.store.get(PRINCIPAL.tenant, run.task.task_id)).status is TaskStatus.RUNNING
    (record,) = env.audit.records
    assert (record.approval, record.approved_by, record.outcome) == (
        label,
        "carol",
        "ok" if approved else "rejected",
    )
    closed = await env.waits.get(run.task.task_id, asked.call_id)
    assert closed is not None
    assert closed.state is WaitState.CLOSED  # taken in
    assert "i1/0" not in woken.tools.journal  # the call is done with its wait


async def test_a_second_look_at_an_open_wait_parks_again_without_asking_again(
    tmp_path: Path,
) -> None:
    env = make_env(tmp_path, approval_tools=["calculator"])
    run = await env.run(NEVER)
    with pytest.raises(Parked):
        await run.tools.call("iteration-1", "calculator", {"expression": "6*7"}, key="i1/0")

    woken = await env.woken(run, NEVER)  # woken for another reason: still undecided
    with pytest.raises(Parked):
        await woken.tools.call("iteration-1", "calculator", None, key="i1/0")

    assert kinds(await env.events(woken)) == [
        "tool_call_started",
        "status_changed",
        "approval_requested",
    ]


async def test_a_call_needing_approval_is_refused_when_nobody_can_be_asked(
    tmp_path: Path,
) -> None:
    env = make_env(tmp_path, approval_tools=["calculator"])
    run = await env.run(NEVER, persist=False)  # the Plan RPC: no task to pause

    result = await run.tools.call("plan", "calculator", {"expression": "6*7"})

    assert result.text.startswith("refused (PERMISSION_DENIED, default:write:approval): ")
    assert "only a task (Execute) can wait for it" in result.text
    assert run.task.status is TaskStatus.RUNNING


@pytest.mark.parametrize("action", [WaitAction.DENY, WaitAction.FAIL])
async def test_an_approval_whose_deadline_passed_is_a_timeout_never_a_decision(
    tmp_path: Path, action: WaitAction
) -> None:
    config = EngineConfig(waits=WaitPolicy(wait_actions={WaitKind.APPROVAL: action}))
    env = make_env(tmp_path, config, approval_tools=["calculator"])
    run = await env.run(NEVER)
    with pytest.raises(Parked) as parked:
        await run.tools.call("iteration-1", "calculator", {"expression": "6*7"}, key="i1/0")
    slot = parked.value.waits[0].slot
    assert await env.waits.expire(run.task.task_id, slot, datetime.now(UTC))

    woken = await env.woken(run, NEVER)
    if action is WaitAction.FAIL:
        with pytest.raises(WaitExpiredError, match="no decision on calculator"):
            await woken.tools.call("iteration-1", "calculator", None, key="i1/0")
        return
    result = await woken.tools.call("iteration-1", "calculator", None, key="i1/0")

    assert result.error == ToolCallError(ToolErrorKind.TIMEOUT, result.text)
    assert result.text == "not called: no decision on calculator came before its deadline"
    events = await env.events(woken)
    assert not of_type(events, ev.ApprovalDecided)  # nobody decided
    assert woken.task.status is TaskStatus.RUNNING
    (record,) = env.audit.records
    assert (record.outcome, record.rule.endswith(":deadline")) == ("timeout", True)
