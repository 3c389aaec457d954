"""A woken run picks up what its task left when it parked, no more and no less: a person's
rejection stands although the policy stopped asking, the citations and artifacts it had
gathered are still its answer's, a plan's step that failed beside a parked one is acted
on (not run again), and a critic's correction that parked is finished, not asked for
again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent.limits import EngineConfig, PlanPolicy
from agent.llm.roles import ModelRoles
from agent.llm.testing import FunctionModel, ScriptedModel, text, tool_calls
from agent.modes import plan_execute
from agent.parked import Parked
from agent.running.answers import Outcome
from records import events as ev
from records.messages import ModelResponse
from records.tasks import Citation
from records.tools.model import PermissionLevel
from records.tools.outcomes import ToolCallError, ToolErrorKind
from records.waits import WaitKind
from tests.unit.agent.runs import Env, make_env, of_type
from tools.permissions import GrantPolicy

NEVER = FunctionModel(lambda *_: (_ for _ in ()).throw(AssertionError("never asked")))


def _plan(*steps: dict[str, Any]) -> ModelResponse:
    return text(json.dumps({"steps": list(steps)}))


def _verdict(decision: str, step_id: str = "", feedback: str = "") -> ModelResponse:
    score = 0.9 if decision == "accept" else 0.2
    scores = dict.fromkeys(("accuracy", "completeness", "relevance", "logic"), score)
    verdict = {"decision": decision, "step_id": step_id, "feedback": feedback}
    return text(json.dumps({**scores, **verdict}))


def _roles(**scripts: list[ModelResponse]) -> tuple[ModelRoles, dict[str, ScriptedModel]]:
    models = {
        role: ScriptedModel(scripts.get(role, []))
        for role in ("planner", "executor", "critic", "synthesizer")
    }
    roles = ModelRoles(
        NEVER,
        planner=models["planner"],
        executor=models["executor"],
        critic=models["critic"],
        synthesizer=models["synthesizer"],
    )
    return roles, models


async def _approve(env: Env, run: Any, parked: Parked) -> None:
    (waiting,) = parked.waits
    await env.answer(run, waiting.slot, WaitKind.APPROVAL, approved=True, comment="")


async def test_a_rejection_stands_when_the_policy_stopped_asking_while_the_call_waited(
    tmp_path: Path,
) -> None:
    env = make_env(tmp_path, approval_tools=["calculator"])
    run = await env.run(NEVER)
    with pytest.raises(Parked) as parked:
        await run.tools.call("iteration-1", "calculator", {"expression": "6*7"}, key="i1/0")
    (waiting,) = parked.value.waits
    await env.answer(run, waiting.slot, WaitKind.APPROVAL, approved=False, comment="no")
    # Meanwhile the rule that asked for approval was taken away.
    env.registry._policy = GrantPolicy(default=PermissionLevel.WRITE)

    woken = await env.woken(run, NEVER)
    result = await woken.tools.call("iteration-1", "calculator", None, key="i1/0")

    assert result.error == ToolCallError(ToolErrorKind.REJECTED, "rejected by carol: no")
    decided = of_type(await env.events(woken), ev.ApprovalDecided)
    assert [(d.call_id, d.decision) for d in decided] == [(waiting.slot, "reject")]
    assert [r.outcome for r in env.audit.records] == ["rejected"]  # never run


async def test_the_citations_and_artifacts_gathered_before_a_park_are_the_woken_runs(
    tmp_path: Path,
) -> None:
    env = make_env(tmp_path)
    run = await env.run(NEVER)
    cited = Citation("kb_1", "doc_1", 3, 0.82, "the quarter closed")
    written = ev.ArtifactUpdated("report.md", 2, "text/markdown", 120, run.task.task_id)
    run.transcript.citations.append(cited)
    run.transcript.artifacts_written.append(written)

    woken = await env.woken(run, NEVER)

    assert (woken.transcript.citations, woken.transcript.artifacts_written) == ([cited], [written])


async def test_a_step_that_failed_beside_a_parked_step_is_acted_on_not_run_again(
    tmp_path: Path,
) -> None:
    config = EngineConfig(plan=PlanPolicy(step_policy="skip", critic_policy="off"))
    env = make_env(tmp_path, config, approval_tools=["send_message"])
    divide = {
        "id": "divide",
        "description": "divide",
        "depends_on": [],
        "tool": "calculator",
        "arguments": {"expression": "1/0"},
    }
    tell = {"id": "tell", "description": "tell bob", "depends_on": [],
            "tool": "send_message", "arguments": {"to": "bob"}}  # fmt: skip
    roles, _ = _roles(planner=[_plan(divide, tell)], synthesizer=[text("bob knows")])
    run = await env.run(roles, tools=("calculator", "send_message"))
    with pytest.raises(Parked) as parked:
        await plan_execute.run(run)
    await _approve(env, run, parked.value)

    woken = await env.woken(run, roles)
    assert await plan_execute.run(woken) == Outcome("bob knows")

    events = await env.events(woken)
    started = [s.step_id for s in of_type(events, ev.StepStarted)]
    assert sorted(started) == ["divide", "tell"]  # each once: divide is not run again
    assert env.send.sent == ["bob"]
    assert "[divide] skipped after it failed: division by zero" in woken.transcript.notes


async def test_a_critics_correction_that_parked_is_finished_when_woken_not_asked_again(
    tmp_path: Path,
) -> None:
    env = make_env(
        tmp_path,
        EngineConfig(plan=PlanPolicy(critic_policy="end")),
        approval_tools=["send_message"],
    )
    tell = {"id": "tell", "description": "tell bob", "depends_on": [],
            "tool": "send_message", "arguments": {"to": "bob"}}  # fmt: skip
    roles, models = _roles(
        planner=[_plan(tell)],
        executor=[tool_calls(("send_message", {"to": "bob, again"}))],
        critic=[_verdict("revise", "tell", "say it again"), _verdict("accept")],
        synthesizer=[text("bob heard twice")],
    )
    run = await env.run(roles, tools=("send_message",))
    with pytest.raises(Parked) as first:  # the step's call
        await plan_execute.run(run)
    await _approve(env, run, first.value)
    woken = await env.woken(run, roles)
    with pytest.raises(Parked) as second:  # the correction's call
        await plan_execute.run(woken)
    await _approve(env, woken, second.value)

    again = await env.woken(woken, roles)
    assert await plan_execute.run(again) == Outcome("bob heard twice")

    assert env.send.sent == ["bob", "bob, again"]
    assert len(models["critic"].calls) == 2  # the revision, then the corrected step accepted
    assert len(models["executor"].calls) == 1  # the correction's arguments, asked once
