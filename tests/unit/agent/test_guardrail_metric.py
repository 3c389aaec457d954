"""`count_decision` counts each guardrail decision in agentd_guardrail_decisions_total, by
check, point and action only; a point or action outside the enums and every check name past
the bound are counted as "other", so the series stay bounded whatever agent files say."""

from __future__ import annotations

import pytest

from agent import metrics
from core.metrics import REGISTRY
from records.guardrails import Action, Point

NAME = "agentd_guardrail_decisions_total"


def _count(check: str, point: str, action: str) -> float:
    labels = {"check": check, "point": point, "action": action}
    return REGISTRY.get_sample_value(NAME, labels) or 0.0


def test_a_decision_is_counted_by_check_point_and_action() -> None:
    before = _count("metric-cards", "tool_result", "redact")
    metrics.count_decision("metric-cards", "tool_result", "redact")
    metrics.count_decision("metric-cards", Point.TOOL_RESULT, Action.REDACT)
    assert _count("metric-cards", "tool_result", "redact") == before + 2
    labels = {s.name: s.labels for m in REGISTRY.collect() for s in m.samples if s.name == NAME}
    assert set(labels[NAME]) == {"check", "point", "action"}


def test_what_is_not_a_point_or_an_action_counts_as_other() -> None:
    before = _count("metric-odd", "other", "other")
    metrics.count_decision("metric-odd", "somewhere", "shout")
    assert _count("metric-odd", "other", "other") == before + 1
    assert _count("metric-odd", "somewhere", "shout") == 0.0


def test_check_names_past_the_bound_count_as_other(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(metrics, "MAX_CHECK_LABELS", 2)
    monkeypatch.setattr(metrics, "_checks", set())
    before = {c: _count(c, "input", "block") for c in ("other", "metric-a", "metric-b")}
    for check in ("metric-a", "metric-b", "metric-c", "metric-a", "metric-d"):
        metrics.count_decision(check, "input", "block")
    assert _count("metric-a", "input", "block") == before["metric-a"] + 2
    assert _count("metric-b", "input", "block") == before["metric-b"] + 1
    assert _count("other", "input", "block") == before["other"] + 2
    assert _count("metric-c", "input", "block") == _count("metric-d", "input", "block") == 0.0
