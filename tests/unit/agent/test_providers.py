"""Circuit breakers, fallback chains and agents naming providers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.llm.base import ModelError
from agent.llm.providers import CircuitBreaker, Provider, chain
from agent.llm.testing import FunctionModel
from records.agents.definition import AgentInvalidError, parse_agent
from records.messages import Message, ModelResponse
from server.wiring.providers import ProvidersInvalidError, read_definitions


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_breaker_opens_on_failures_in_its_window_and_half_opens_after() -> None:
    clock = Clock()
    breaker = CircuitBreaker(failures=2, window_seconds=10, open_seconds=5, clock=clock)
    breaker.failed()
    clock.now = 11  # the first failure is out of the window
    breaker.failed()
    assert breaker.state == "closed"
    clock.now = 12
    breaker.failed()
    assert breaker.state == "open"
    assert not breaker.allows()
    clock.now = 17
    assert breaker.state == "half_open"
    assert breaker.allows()  # one trial
    assert not breaker.allows()
    breaker.failed()  # the trial failed: open again
    assert breaker.state == "open"
    clock.now = 23
    assert breaker.allows()
    breaker.succeeded()
    assert breaker.state == "closed"


def _provider(name: str, reply: str | ModelError, models: tuple[str, ...] = ()) -> Provider:
    def answer(*_: object) -> ModelResponse:
        if isinstance(reply, ModelError):
            raise reply
        return ModelResponse(text=reply)

    def make(model: str, temperature: float | None, max_tokens: int | None) -> FunctionModel:
        made = FunctionModel(answer)
        made.name = model
        return made

    return Provider(name, make, models)


async def test_a_chain_falls_back_on_retryable_errors_only() -> None:
    down = _provider("down", ModelError("timed out", retryable=True))
    up = _provider("up", "hello")
    providers = {"down": down, "up": up}
    model = chain(providers, [("down", "m1"), ("up", "m2")], lambda p, n: p.make(n, None, None))
    response = await model.complete([Message("user", "hi")])
    assert (response.text, response.provider, response.model) == ("hello", "up", "m2")
    refusing = _provider("refusing", ModelError("bad request (400)"))
    model = chain({**providers, "refusing": refusing}, [("refusing", "m"), ("up", "m")],
                  lambda p, n: p.make(n, None, None))  # fmt: skip
    with pytest.raises(ModelError, match="bad request"):
        await model.complete([Message("user", "hi")])


async def test_unknown_providers_and_disallowed_models_are_said_when_nothing_answers() -> None:
    only = _provider("only", "x", models=("allowed",))
    links = [("ghost", "m"), ("only", "other")]
    model = chain({"only": only}, links, lambda p, n: p.make(n, None, None))
    with pytest.raises(ModelError) as raised:
        await model.complete([Message("user", "hi")])
    assert "ghost: no such provider" in raised.value.message
    assert "'other' is not among its allowed models" in raised.value.message


def test_agents_name_providers_per_role_and_a_fallback_chain() -> None:
    agent = parse_agent(
        {"id": "a", "provider": {"default": "main", "critic": "cheap"},
         "fallback": [{"provider": "backup", "model": "m2"}, {"provider": "other"}]},
        "a.yaml",
    )  # fmt: skip
    assert agent.providers == {"default": "main", "critic": "cheap"}
    assert agent.fallback == (("backup", "m2"), ("other", ""))
    for bad, field in (
        ({"provider": "Not Valid"}, "provider"),
        ({"provider": {"boss": "x"}}, "provider.boss"),
        ({"fallback": [{"model": "m"}]}, "fallback[0].provider"),
        ({"fallback": [{"provider": "p", "api_key": "k"}]}, "fallback[0]"),
    ):
        with pytest.raises(AgentInvalidError) as raised:
            parse_agent({"id": "a", **bad}, "a.yaml")
        assert raised.value.field == field


def test_a_providers_file_is_checked_at_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "providers.json"
    monkeypatch.delenv("NOT_SET_KEY", raising=False)
    for providers, problem in (
        ({}, "expected `providers:`"),
        ({"p": {"api_key_env": "X"}}, "providers.p.base_url: required"),
        ({"p": {"base_url": "http://127.0.0.1:1/v1", "api_key_env": "NOT_SET_KEY"}},
         "NOT_SET_KEY is not set"),
        ({"p": {"base_url": "http://127.0.0.1:1/v1", "key": "x"}}, "providers.p.key: unknown"),
        ({"p": {"base_url": "http://127.0.0.1:1/v1", "max_concurrent": 0}}, "max_concurrent"),
    ):  # fmt: skip
        path.write_text(json.dumps({"providers": providers}))
        with pytest.raises(ProvidersInvalidError, match=problem):
            read_definitions(path)


def test_an_agent_gets_its_provider_per_role_then_its_fallback_chain(tmp_path: Path) -> None:
    from agent.llm.providers import FallbackModel
    from agent.llm.roles import ModelRoles
    from agent.scheduling.factory import RunFactory, RunStores
    from core.identity import CallContext
    from records.tasks import Task
    from tests.unit.agent.runs import PRINCIPAL, make_env

    env = make_env(tmp_path)
    providers = {name: _provider(name, name) for name in ("main", "cheap", "backup")}
    models = ModelRoles(default=FunctionModel(lambda *_: ModelResponse(text="server")),
                        providers=providers)  # fmt: skip
    stores = RunStores(None, env.waits)
    factory = RunFactory(models, env.registry, env.store, env.config, stores)
    agent = parse_agent(
        {"id": "a", "model": {"default": "big", "critic": "small"},
         "provider": {"default": "main", "critic": "cheap"},
         "fallback": [{"provider": "backup", "model": "spare"}, {"provider": "backup"}]},
        "a.yaml",
    )  # fmt: skip
    task = Task(task_id="t", tenant=PRINCIPAL.tenant, owner=PRINCIPAL.id, goal="x", agent=agent)
    run = factory.new(task, CallContext(PRINCIPAL), {}, 0, persist=False)
    executor, critic = run.models.for_role("executor"), run.models.for_role("critic")
    assert isinstance(executor, FallbackModel)
    assert isinstance(critic, FallbackModel)
    chains = {
        role: [(c.provider.name, c.model.name) for c in model.candidates]
        for role, model in (("executor", executor), ("critic", critic))
    }
    assert chains == {
        "executor": [("main", "big"), ("backup", "spare"), ("backup", "big")],
        "critic": [("cheap", "small"), ("backup", "spare"), ("backup", "small")],
    }
    assert run.models.router is None  # no router model anywhere: auto mode uses the rule


async def test_a_stream_that_fails_after_reasoning_is_discarded_before_the_next_answers() -> None:
    from collections.abc import AsyncIterator, Sequence

    from agent.llm.base import Model
    from records.messages import Discarded, Done, ReasoningChunk, StreamItem, TextChunk

    class Halfway(Model):
        name = "halfway"

        async def complete(self, *_: object, **__: object) -> ModelResponse:
            raise AssertionError("streamed only")

        async def stream(
            self, messages: Sequence[Message], tools: object = (), settings: object = None
        ) -> AsyncIterator[StreamItem]:
            yield ReasoningChunk("thinking")
            raise ModelError("connection reset", retryable=True)

    first = Provider("first", lambda *_: Halfway())
    up = _provider("up", "whole answer")
    model = chain({"first": first, "up": up}, [("first", "m"), ("up", "m")],
                  lambda p, n: p.make(n, None, None))  # fmt: skip
    items = [item async for item in model.stream([Message("user", "hi")])]
    assert isinstance(items[0], ReasoningChunk)
    assert items[1] == Discarded("first", "halfway", "connection reset")
    assert any(isinstance(i, TextChunk) and i.text for i in items[2:])
    done = items[-1]
    assert isinstance(done, Done)
    assert (done.response.text, done.response.provider) == ("whole answer", "up")
