"""Deferred models: the SDK imported off the event loop once, the real models built once
on first need, each role (and each sibling) answering with its own real model."""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Sequence

import pytest

from agent.llm.base import Model
from agent.llm.deferred import DeferredModel, ModelLoader, deferred_roles, preload
from agent.llm.roles import ModelRoles
from agent.llm.testing import FunctionModel, text
from records.messages import Message, ModelSettings, TextChunk, ToolDefinition

ASK = [Message(role="user", content="hi")]


class Named(FunctionModel):
    """Answers with its own name; its siblings are made with their names."""

    def __init__(self, name: str) -> None:
        def reply(
            messages: Sequence[Message], tools: Sequence[ToolDefinition], settings: ModelSettings
        ) -> object:
            return text(name)

        super().__init__(reply)  # type: ignore[arg-type]
        self.name = name
        self.closed = 0

    async def close(self) -> None:
        self.closed += 1

    def sibling(self, name: str, temperature: float | None, max_tokens: int | None) -> Model:
        return Named(name)


def _loader(built: list[int], imported_on: list[str]) -> tuple[ModelLoader, list[Named]]:
    models: list[Named] = []

    def build() -> ModelRoles:
        built.append(1)
        imported_on.append(threading.current_thread().name)
        default, critic = Named("m"), Named("c")
        models.extend([default, critic])
        return ModelRoles(default=default, critic=critic)

    return ModelLoader(("colorsys",), build), models


async def test_roles_answer_with_their_own_model_built_once() -> None:
    built: list[int] = []
    loader, made = _loader(built, [])
    roles = deferred_roles({None: "m", "critic": "c"}, loader, None)
    assert [roles.for_role(r).name for r in ("planner", "critic")] == ["m", "c"]
    assert built == []  # nothing built before a call
    answers = await asyncio.gather(
        roles.for_role("executor").complete(ASK), roles.for_role("critic").complete(ASK)
    )
    assert [a.text for a in answers] == ["m", "c"]
    streamed = [item async for item in roles.default.stream(ASK)]
    assert [i.text for i in streamed if isinstance(i, TextChunk)] == ["m"]
    assert built == [1]
    await roles.close()
    await roles.close()
    assert [m.closed for m in made] == [1, 1]  # the real models closed once


async def test_the_sdk_is_imported_in_a_worker_thread_after_preload() -> None:
    sys.modules.pop("colorsys", None)
    built: list[int] = []
    on: list[str] = []
    loader, _ = _loader(built, on)
    roles = deferred_roles({None: "m"}, loader, None)
    preload(roles)
    await asyncio.sleep(0)
    answer = await roles.default.complete(ASK)
    assert answer.text == "m"
    assert "colorsys" in sys.modules
    assert on == [threading.current_thread().name]  # built on the event loop's thread


async def test_a_sibling_is_the_default_model_s_sibling() -> None:
    loader, _ = _loader([], [])
    roles = deferred_roles({None: "m"}, loader, None)
    assert isinstance(roles.default, DeferredModel)
    sibling = roles.default.sibling("other", 0.1, 5)
    assert sibling.name == "other"
    assert (await sibling.complete(ASK)).text == "other"


async def test_an_sdk_that_fails_to_import_fails_each_call() -> None:
    loader = ModelLoader(("agentd_no_such_module",), lambda: ModelRoles(default=Named("m")))
    roles = deferred_roles({None: "m"}, loader, None)
    for _ in range(2):
        with pytest.raises(ModuleNotFoundError):
            await roles.default.complete(ASK)


def test_a_deferred_model_says_its_reply_limit_before_it_is_built() -> None:
    """AGENTD_LLM_MAX_TOKENS holds for the server's deferred models: fitting and budgets
    read `max_tokens` before the model is built (else the catalog's reply limit is sent)."""
    loader, _ = _loader([], [])
    roles = deferred_roles({None: "m", "critic": "c"}, loader, None, 64)
    assert [roles.for_role(r).max_tokens for r in ("planner", "critic")] == [64, 64]
    default = roles.default
    assert isinstance(default, DeferredModel)
    assert default.sibling("other", None, None).max_tokens == 64
    assert default.sibling("other", None, 16).max_tokens == 16
