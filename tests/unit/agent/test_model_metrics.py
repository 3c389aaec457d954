"""`observe_model_call` counts each model call by provider, model, a bounded agent label
and outcome, with its duration, tokens and cost; a task's end counts why it stopped and
observes how many model calls it made, by agent. The agent label stays bounded: agents of
files by their id always, the first N other ids by theirs, then "other"; the default
agent is "default", and the end user is never a label."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from agent import metrics
from agent.engine import Engine
from agent.llm.roles import ModelRoles
from agent.llm.testing import ScriptedModel, text, tool_calls
from agent.parts import EngineParts
from core.identity import CallContext
from core.metrics import REGISTRY
from records import events as ev
from records.agents.definition import AgentDefinition
from records.execution import ExecutionMode
from records.requests import TaskRequest
from records.tasks import StopReason, Task, TaskStatus, TokenUsage
from records.usage.ledger import CallOutcome, ModelCall
from tests.unit.agent.runs import PRINCIPAL, make_env

USER = "alice@example.com"


def _value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def _calls(agent: str, outcome: str = "ok", model: str = "metrics-m") -> float:
    labels = {"provider": "metrics-p", "model": model, "agent": agent, "outcome": outcome}
    return _value("agentd_model_calls_total", **labels)


def _call(
    agent: str,
    *,
    provider: str = "metrics-p",
    model: str = "metrics-m",
    outcome: CallOutcome = CallOutcome.OK,
    prompt: int = 0,
    cached: int = 0,
    completion: int = 0,
    cost: int = 0,
) -> ModelCall:
    return ModelCall(
        call_id="c1",
        at=datetime.now(UTC),
        tenant="acme",
        task_id="t1",
        root_task_id="t1",
        user=USER,
        agent=agent,
        agent_version=1,
        agents=(agent,),
        provider=provider,
        model=model,
        role="executor",
        outcome=outcome,
        prompt_tokens=prompt,
        cached_prompt_tokens=cached,
        completion_tokens=completion,
        cost_micros=cost,
    )


@pytest.fixture
def labels(monkeypatch: pytest.MonkeyPatch) -> metrics.BoundedLabels:
    """Agent labels of the test's own: the file agent "filed" and two more ids."""
    fresh = metrics.BoundedLabels(2, named=lambda agent: agent == "filed")
    monkeypatch.setattr(metrics, "AGENT_LABELS", fresh)
    return fresh


def test_a_model_call_counts_its_outcome_duration_tokens_and_cost(
    labels: metrics.BoundedLabels,
) -> None:
    where = {"provider": "metrics-p", "model": "metrics-m"}
    of_agent = {**where, "agent": "filed"}
    before = {
        "ok": _calls("filed"),
        "failed": _calls("filed", "failed"),
        "count": _value("agentd_model_call_duration_seconds_count", **where),
        "sum": _value("agentd_model_call_duration_seconds_sum", **where),
        "le1": _value("agentd_model_call_duration_seconds_bucket", **where, le="1.0"),
        "le05": _value("agentd_model_call_duration_seconds_bucket", **where, le="0.5"),
        "cost": _value("agentd_model_cost_micros_total", **of_agent),
        **{
            kind: _value("agentd_model_tokens_total", **of_agent, kind=kind)
            for kind in ("prompt", "cached_prompt", "completion")
        },
    }
    call = _call("filed", prompt=100, cached=40, completion=7, cost=1234)
    metrics.observe_model_call(call, 0.75)
    metrics.observe_model_call(_call("filed", outcome=CallOutcome.FAILED), 2.0)

    assert _calls("filed") == before["ok"] + 1
    assert _calls("filed", "failed") == before["failed"] + 1
    assert _value("agentd_model_call_duration_seconds_count", **where) == before["count"] + 2
    assert _value("agentd_model_call_duration_seconds_sum", **where) == before["sum"] + 2.75
    le1 = _value("agentd_model_call_duration_seconds_bucket", **where, le="1.0")
    assert le1 == before["le1"] + 1  # 0.75 s; the failed call's 2 s is above
    le05 = _value("agentd_model_call_duration_seconds_bucket", **where, le="0.5")
    assert le05 == before["le05"]
    tokens = {
        kind: _value("agentd_model_tokens_total", **of_agent, kind=kind) - before[kind]
        for kind in ("prompt", "cached_prompt", "completion")
    }
    assert tokens == {"prompt": 100, "cached_prompt": 40, "completion": 7}
    assert _value("agentd_model_cost_micros_total", **of_agent) == before["cost"] + 1234


def test_the_servers_endpoint_and_the_default_agent_are_labelled_default(
    labels: metrics.BoundedLabels,
) -> None:
    where = {"provider": "default", "model": "metrics-own", "agent": "default"}
    before = _value("agentd_model_calls_total", **where, outcome="ok")
    metrics.observe_model_call(_call("", provider="", model="metrics-own"), 0.1)
    assert _value("agentd_model_calls_total", **where, outcome="ok") == before + 1


def test_no_label_of_the_model_series_is_a_user_or_a_tenant(
    labels: metrics.BoundedLabels,
) -> None:
    metrics.observe_model_call(_call("filed", prompt=1, completion=1, cost=1), 0.1)
    for family in REGISTRY.collect():
        if family.name.startswith(("agentd_model_", "agentd_task_iterations")):
            for sample in family.samples:
                assert not {"user", "tenant"} & set(sample.labels)
                assert USER not in sample.labels.values()
                assert "acme" not in sample.labels.values()


def test_agents_past_the_bound_are_other_and_file_agents_always_themselves(
    labels: metrics.BoundedLabels,
) -> None:
    before = {agent: _calls(agent) for agent in ("a-one", "a-two", "a-three", "other", "filed")}
    for agent in ("a-one", "a-two", "a-three", "filed", "a-one", "a-four"):
        metrics.observe_model_call(_call(agent), 0.1)
    counted = {agent: _calls(agent) - before[agent] for agent in before}
    assert counted == {"a-one": 2, "a-two": 1, "a-three": 0, "other": 2, "filed": 1}
    assert (labels("a-two"), labels("a-five"), labels("filed"), labels("")) == (
        "a-two",
        "other",
        "filed",
        "default",
    )


def test_configure_sets_the_bound_and_the_file_agents_and_forgets_what_was_seen() -> None:
    bounded = metrics.BoundedLabels(1)
    assert (bounded("x"), bounded("y")) == ("x", "other")
    files = {"from-file"}
    bounded.configure(0, files.__contains__)
    assert (bounded("x"), bounded("from-file")) == ("other", "from-file")
    files.add("added-later")  # agent files read again: the new agent is named
    assert bounded("added-later") == "added-later"


def test_models_past_their_bound_are_other(
    labels: metrics.BoundedLabels, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(metrics, "MODEL_LABELS", metrics.BoundedLabels(1))
    before = _calls("filed", model="metrics-first"), _calls("filed", model="other")
    metrics.observe_model_call(_call("filed", model="metrics-first"), 0.1)
    metrics.observe_model_call(_call("filed", model="metrics-second"), 0.1)
    assert _calls("filed", model="metrics-first") == before[0] + 1
    assert _calls("filed", model="other") == before[1] + 1
    assert _calls("filed", model="metrics-second") == 0.0


def _iterations(agent: str) -> tuple[float, float, float]:
    """Count, sum and the le="2.0" bucket of agentd_task_iterations for `agent`."""
    return (
        _value("agentd_task_iterations_count", agent=agent),
        _value("agentd_task_iterations_sum", agent=agent),
        _value("agentd_task_iterations_bucket", agent=agent, le="2.0"),
    )


def _stopped(agent: str, reason: str) -> float:
    return _value("agentd_tasks_stopped_total", agent=agent, stop_reason=reason)


def test_a_task_end_observes_its_model_calls_and_why_it_stopped(
    labels: metrics.BoundedLabels,
) -> None:
    task = Task("metrics-t1", "acme", USER, "goal", agent=AgentDefinition("filed"))
    other = Task("metrics-t2", "acme", USER, "goal")  # the default agent, never a call
    before = _iterations("filed"), _stopped("filed", "max_iterations")
    before_default = _iterations("default"), _stopped("default", "cancelled")
    usage = ev.UsageReported("s1", "executor", TokenUsage(1, 1), TokenUsage(1, 1))
    metrics.observe_event(task, ev.StatusChanged(TaskStatus.RUNNING, TaskStatus.PENDING))
    for _ in range(3):
        metrics.observe_event(task, usage)
    metrics.observe_event(task, ev.StatusChanged(TaskStatus.INPUT_REQUIRED, TaskStatus.RUNNING))
    assert _iterations("filed") == before[0]  # not ended yet
    ended = ev.StatusChanged(
        TaskStatus.COMPLETED, TaskStatus.RUNNING, "", StopReason.MAX_ITERATIONS
    )
    metrics.observe_event(task, ended)
    count, total, le2 = _iterations("filed")
    assert (count, total, le2) == (before[0][0] + 1, before[0][1] + 3, before[0][2])
    assert _stopped("filed", "max_iterations") == before[1] + 1

    other.stop_reason = StopReason.CANCELLED  # said by the task when the event does not
    metrics.observe_event(other, ev.StatusChanged(TaskStatus.CANCELLED, TaskStatus.RUNNING))
    count, total, le2 = _iterations("default")
    assert (count, total, le2) == (
        before_default[0][0] + 1,
        before_default[0][1],
        before_default[0][2] + 1,
    )
    assert _stopped("default", "cancelled") == before_default[1] + 1


async def test_a_run_through_the_engine_counts_its_model_calls(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    model = ScriptedModel([tool_calls(("calculator", {"expression": "6*7"})), text("42")])
    engine = Engine(ModelRoles(default=model), env.registry, EngineParts(env.store), env.config)
    before = _iterations("default"), _stopped("default", "final_answer")
    request = TaskRequest("6*7?", tools=("calculator",), mode=ExecutionMode.FUNCTION_CALLING)
    task = await engine.start(request, CallContext(PRINCIPAL))
    [e async for e in env.store.read_events(PRINCIPAL.tenant, task.task_id)]  # to its end
    await engine.close()
    model.assert_complete()
    count, total, _ = _iterations("default")
    assert (count, total) == (before[0][0] + 1, before[0][1] + 2)
    assert _stopped("default", "final_answer") == before[1] + 1


def test_a_call_counts_under_the_labels_its_bound_gives_now(
    labels: metrics.BoundedLabels,
) -> None:
    """The series a kind of call counts on are looked up once, and looked up again when the
    bound is configured anew: an agent counted under its own id before counts as "other"
    once the bound leaves no room for it."""
    where = {"provider": "metrics-p", "model": "metrics-m"}
    metrics.observe_model_call(_call("bound-a"), 0.1)
    before_own = _value("agentd_model_calls_total", **where, agent="bound-a", outcome="ok")
    labels.configure(1, named=lambda agent: False)
    metrics.observe_model_call(_call("bound-b"), 0.1)  # takes the one place
    before_other = _value("agentd_model_calls_total", **where, agent="other", outcome="ok")
    metrics.observe_model_call(_call("bound-a"), 0.1)
    assert _value("agentd_model_calls_total", **where, agent="bound-a", outcome="ok") == before_own
    assert (
        _value("agentd_model_calls_total", **where, agent="other", outcome="ok") == before_other + 1
    )
