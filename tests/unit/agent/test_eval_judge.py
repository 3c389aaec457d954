"""The judge grader: a model's verdict (a score and reasoning, kept in the reason) passes
at its pass score; anything but that JSON is a failed grade saying what came back."""

from __future__ import annotations

import asyncio
import json

import pytest

from agent.evals import judge as judging
from agent.evals.graders import Outcome
from agent.evals.judge import JUDGE_SYSTEM, judge, parse_verdict
from agent.llm.base import Model, ModelError
from agent.llm.roles import ModelRoles
from agent.llm.testing import ScriptedModel
from records.evals.model import Grader, GraderKind
from records.messages import ModelResponse
from server.wiring.own import judge_models

RUBRIC = Grader(GraderKind.JUDGE, name="polite", rubric="Polite and correct.", pass_score=0.7)


def _models(model: Model) -> dict[str, Model]:
    return {"": model, "judge-model": model}


async def test_a_verdict_at_the_pass_score_passes_and_keeps_its_reasoning() -> None:
    model = ScriptedModel([ModelResponse(text=json.dumps({"score": 0.7, "reasoning": "Fine."}))])
    result = await judge(RUBRIC, "Greet me", Outcome("Hello!"), _models(model).__getitem__)
    assert (result.name, result.kind, result.passed, result.score) == ("polite", "judge", True, 0.7)
    assert result.reason == "score 0.7: Fine."
    (call,) = model.calls
    assert call.messages[0].content == JUDGE_SYSTEM
    assert "Polite and correct." in call.messages[1].content
    assert "<answer>\nHello!\n</answer>" in call.messages[1].content
    assert call.settings.json_schema is not None
    assert call.settings.temperature == 0.0


async def test_a_low_score_fails_with_the_reasoning() -> None:
    model = ScriptedModel([ModelResponse(text='{"score": 0.2, "reasoning": "Rude."}')])
    result = await judge(RUBRIC, "Greet me", Outcome("Go away"), _models(model).__getitem__)
    assert not result.passed
    assert result.score == 0.2
    assert result.reason == "score 0.2: Rude."


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ("Looks great to me!", "the judge did not answer JSON"),
        ("[1, 2]", "the judge's answer is not an object"),
        ('{"score": 7, "reasoning": "x"}', "the judge's score is not a number from 0 to 1: 7"),
        ('{"score": true, "reasoning": "x"}', "the judge's score is not a number from 0 to 1"),
        ('{"score": "1", "reasoning": "x"}', "the judge's score is not a number from 0 to 1"),
        ('{"score": 1, "reasoning": 5}', "the judge's reasoning is not text"),
    ],
)
async def test_a_reply_that_is_not_a_verdict_is_a_failed_grade(reply: str, why: str) -> None:
    model = ScriptedModel([ModelResponse(text=reply)])
    result = await judge(RUBRIC, "t", Outcome("a"), _models(model).__getitem__)
    assert not result.passed
    assert result.score == 0.0
    assert result.reason.startswith(why)


async def test_a_model_that_fails_or_is_missing_is_a_failed_grade() -> None:
    failing = ScriptedModel([ModelError("endpoint down")])
    result = await judge(RUBRIC, "t", Outcome("a"), _models(failing).__getitem__)
    assert not result.passed
    assert result.reason == "the judge could not be asked: endpoint down"

    def none(name: str) -> Model:
        raise ValueError(f"no model {name!r} can be made on this server")

    named = Grader(GraderKind.JUDGE, rubric="r", model="judge-x")
    missing = await judge(named, "t", Outcome("a"), none)
    assert (
        missing.reason
        == "the judge could not be asked: no model 'judge-x' can be made on this server"
    )


def test_a_fenced_verdict_is_read() -> None:
    assert parse_verdict('```json\n{"score": 1, "reasoning": "ok"}\n```') == (1.0, "ok")


class _Silent(ScriptedModel):
    """A model that never answers."""

    async def complete(self, *args: object, **kwargs: object) -> ModelResponse:
        await asyncio.sleep(3600)
        raise AssertionError("unreachable")


async def test_a_judge_that_does_not_answer_in_time_fails_its_grade(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(judging, "JUDGE_SECONDS", 0.05)
    result = await judge(RUBRIC, "Greet me", Outcome("Hello!"), _models(_Silent([])).__getitem__)
    assert not result.passed
    assert result.reason == "the judge did not answer within 0.05 s"


async def test_a_judge_model_agents_may_not_name_is_not_asked() -> None:
    model = ScriptedModel([ModelResponse(text='{"score": 1, "reasoning": "ok"}')])
    models = judge_models(ModelRoles(default=model), ("allowed-model",))
    named = Grader(GraderKind.JUDGE, rubric="r", model="pricey-model")
    result = await judge(named, "Greet me", Outcome("Hello!"), models)
    assert not result.passed
    assert "'pricey-model' is not a model agents may name here" in result.reason
    assert model.calls == []
