"""A fallback chain counts each move past a candidate that failed retryably in
agentd_provider_fallbacks_total (not the last candidate's failure: nothing follows it),
and each opening of a provider's breaker in agentd_provider_breaker_openings_total (not
a failure while it is open already)."""

from __future__ import annotations

import pytest

from agent.llm.base import ModelError
from agent.llm.providers import CircuitBreaker, FallbackModel, Provider, chain
from agent.llm.testing import FunctionModel
from core.metrics import REGISTRY
from records.messages import Done, Message, ModelResponse


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _fallbacks(provider: str, model: str) -> float:
    labels = {"provider": provider, "model": model}
    return REGISTRY.get_sample_value("agentd_provider_fallbacks_total", labels) or 0.0


def _openings(provider: str) -> float:
    labels = {"provider": provider}
    return REGISTRY.get_sample_value("agentd_provider_breaker_openings_total", labels) or 0.0


def _provider(name: str, reply: str | ModelError, breaker: CircuitBreaker) -> Provider:
    def answer(*_: object) -> ModelResponse | ModelError:
        return reply if isinstance(reply, ModelError) else ModelResponse(text=reply)

    def make(model: str, temperature: float | None, max_tokens: int | None) -> FunctionModel:
        made = FunctionModel(answer)
        made.name = model
        return made

    return Provider(name, make, breaker=breaker)


def _chain(first: Provider, second: Provider) -> FallbackModel:
    providers = {first.name: first, second.name: second}
    links = [(first.name, "m-first"), (second.name, "m-second")]
    return chain(providers, links, lambda p, n: p.make(n, None, None))


async def test_a_retryable_failure_falls_back_and_opens_the_breaker_once() -> None:
    clock = Clock()
    breaker = CircuitBreaker(failures=2, window_seconds=60, open_seconds=30, clock=clock)
    down = _provider("metrics-down", ModelError("timed out", retryable=True), breaker)
    up = _provider("metrics-up", "hello", CircuitBreaker(clock=clock))
    model = _chain(down, up)
    fallbacks, openings = _fallbacks("metrics-down", "m-first"), _openings("metrics-down")

    response = await model.complete([Message("user", "hi")])
    assert response.provider == "metrics-up"
    assert _fallbacks("metrics-down", "m-first") == fallbacks + 1
    assert _openings("metrics-down") == openings  # one failure of two: still closed

    await model.complete([Message("user", "hi")])  # the second failure opens it
    assert breaker.state == "open"
    assert _fallbacks("metrics-down", "m-first") == fallbacks + 2
    assert _openings("metrics-down") == openings + 1

    await model.complete([Message("user", "hi")])  # skipped while open: not tried
    assert _fallbacks("metrics-down", "m-first") == fallbacks + 2
    assert _openings("metrics-down") == openings + 1

    clock.now = 31  # half-open: the one trial fails, the breaker opens again
    items = [item async for item in model.stream([Message("user", "hi")])]
    done = items[-1]
    assert isinstance(done, Done)
    assert done.response.provider == "metrics-up"
    assert _fallbacks("metrics-down", "m-first") == fallbacks + 3
    assert _openings("metrics-down") == openings + 2
    assert _fallbacks("metrics-up", "m-second") == 0.0


async def test_the_last_candidate_failing_is_no_fallback_but_counts_for_its_breaker() -> None:
    failing = ModelError("503", retryable=True)
    first = _provider("metrics-first", failing, CircuitBreaker(failures=5))
    last = _provider("metrics-last", failing, CircuitBreaker(failures=1))
    model = _chain(first, last)
    before = _fallbacks("metrics-first", "m-first"), _openings("metrics-last")
    with pytest.raises(ModelError, match="no provider answered"):
        await model.complete([Message("user", "hi")])
    assert _fallbacks("metrics-first", "m-first") == before[0] + 1  # moved on to the last
    assert _fallbacks("metrics-last", "m-second") == 0.0  # nothing to move on to
    assert _openings("metrics-last") == before[1] + 1
    assert _openings("metrics-first") == 0.0  # one failure of five


def test_a_failure_while_open_does_not_open_the_breaker_again() -> None:
    clock = Clock()
    breaker = CircuitBreaker(failures=1, open_seconds=30, clock=clock)
    assert breaker.failed() is True
    clock.now = 1  # a call sent before it opened fails now
    assert breaker.failed() is False
    assert breaker.state == "open"
    clock.now = 40
    assert breaker.allows()  # the half-open trial ...
    assert breaker.failed() is True  # ... failed: opened again
