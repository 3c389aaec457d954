"""The critic: scores results (accuracy 0.4, completeness 0.3, relevance 0.2, logic 0.1)
and decides accept, revise or replan. Passing needs a weighted confidence of at least
the configured threshold (0.7 by default)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from agent import prompts
from agent.limits import CRITIC_WEIGHTS
from agent.llm.base import ModelError
from agent.llm.structured import json_reply
from agent.running.run import TaskRun
from records import events as ev
from records.messages import Message, ModelSettings

SETTINGS = ModelSettings(json_schema=prompts.CRITIC_SCHEMA, schema_name="verdict")


@dataclass(frozen=True, slots=True)
class CriticReview:
    decision: Literal["accept", "revise", "replan"]
    step_id: str
    feedback: str
    confidence: float
    passed: bool


def _score(data: dict[str, Any], name: str) -> float:
    try:
        return min(1.0, max(0.0, float(data.get(name, 0.0))))
    except (TypeError, ValueError):
        return 0.0


async def review(run: TaskRun, results: str, step_ids: list[str], review_id: str) -> CriticReview:
    """One review of the given steps' results. A critic that cannot be read accepts."""
    messages = [
        Message("system", prompts.CRITIC_SYSTEM),
        Message("user", f"Task: {run.transcript.goal()}\n\nStep results to judge:\n{results}"),
    ]
    data: dict[str, Any] | None = None
    for attempt in (1, 2):
        response = await run.model("critic", review_id, messages, settings=SETTINGS, stream=False)
        try:
            value = json_reply(response)
        except ValueError:
            value = None
        if isinstance(value, dict):
            data = value
            break
        if attempt == 1:
            messages.append(Message("assistant", response.text))
            messages.append(Message("user", "Reply with the JSON verdict only."))
    if data is None:
        await run.transcript.emit(
            ev.ErrorOccurred(
                "MODEL_OUTPUT_INVALID",
                "the critic's verdict could not be read; accepted",
                False,
                review_id,
            )
        )
        return CriticReview("accept", "", "", 1.0, True)
    scores = {name: _score(data, name) for name in CRITIC_WEIGHTS}
    confidence = round(sum(CRITIC_WEIGHTS[n] * s for n, s in scores.items()), 4)
    passed = confidence >= run.config.plan.pass_threshold
    decision = str(data.get("decision", "accept"))
    if passed:
        decision = "accept"
    elif decision not in ("revise", "replan"):
        decision = "revise"
    target = str(data.get("step_id") or "")
    if decision == "revise" and target not in step_ids:
        target = step_ids[-1] if step_ids else ""
    feedback = str(data.get("feedback") or "")
    verdict = CriticReview(decision, target, feedback, confidence, passed)  # type: ignore[arg-type]
    await run.transcript.emit(
        ev.ReflectionVerdict(
            step_id=target if decision == "revise" else (step_ids[0] if len(step_ids) == 1 else ""),
            accuracy=scores["accuracy"],
            completeness=scores["completeness"],
            relevance=scores["relevance"],
            logic=scores["logic"],
            confidence=confidence,
            passed=passed,
            decision=verdict.decision,
            feedback=feedback,
        )
    )
    return verdict


__all__ = ["CriticReview", "ModelError", "review"]
