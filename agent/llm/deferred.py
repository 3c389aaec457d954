"""Models whose provider SDK is imported after the server answers SERVING.

A provider's SDK is a large import (the `openai` package and its transport take a good
part of a second, more on a busy node) that answering health never needs. The server
builds its models as `DeferredModel`s: each knows its name at once (token counting and
logs need it), and the real models are built the first time one is needed, after the
SDK's modules were imported in a worker thread: `preload` starts that import right
after SERVING, and a call that comes first waits for it without blocking the event
loop (docs/deploy.md, "Start-up: what loads when").
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import AsyncIterator, Callable, Sequence

from agent.llm.base import Model
from agent.llm.roles import ModelRoles, RoleName
from records.messages import Message, ModelResponse, ModelSettings, StreamItem, ToolDefinition


def _import(modules: Sequence[str]) -> None:
    for module in modules:
        importlib.import_module(module)


class ModelLoader:
    """Imports `modules` off the event loop (once), then builds the real models with
    `build` on the loop (once): `build` may import those modules freely."""

    def __init__(self, modules: Sequence[str], build: Callable[[], ModelRoles]) -> None:
        self._modules = tuple(modules)
        self._build = build
        self._imported: asyncio.Future[None] | None = None
        self._roles: ModelRoles | None = None
        self._closed = False

    def preload(self) -> None:
        """Start importing the SDK in a worker thread (the server calls it after SERVING)."""
        if self._imported is None:
            loop = asyncio.get_running_loop()
            self._imported = loop.run_in_executor(None, _import, self._modules)

    async def roles(self) -> ModelRoles:
        """The real models, built on first need."""
        if self._roles is None:
            self.preload()
            assert self._imported is not None
            await asyncio.shield(self._imported)  # an import error is raised to each caller
            if self._roles is None:
                self._roles = self._build()
        return self._roles

    async def close(self) -> None:
        if self._roles is not None and not self._closed:
            self._closed = True
            await self._roles.close()


class DeferredModel(Model):
    """One role's model (or a sibling of the default one), built by its `ModelLoader`."""

    def __init__(
        self,
        name: str,
        loader: ModelLoader,
        pick: Callable[[ModelRoles], Model],
        max_tokens: int | None = None,
    ) -> None:
        self.name = name
        self.max_tokens = max_tokens
        """The reply limit the model it stands for is built with (AGENTD_LLM_MAX_TOKENS,
        an agent's `max_tokens`): known before it is built, for fitting and budgets."""
        self.loader = loader
        self._pick = pick
        self._model: Model | None = None
        self.sees_images = True
        """Not known before it is built: images are read for it, and the request builder
        of the model it stands for gives a note instead when that one does not see them."""

    async def _real(self) -> Model:
        if self._model is None:
            self._model = self._pick(await self.loader.roles())
        return self._model

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition] = (),
        settings: ModelSettings | None = None,
    ) -> ModelResponse:
        return await (await self._real()).complete(messages, tools, settings)

    async def stream(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition] = (),
        settings: ModelSettings | None = None,
    ) -> AsyncIterator[StreamItem]:
        async for item in (await self._real()).stream(messages, tools, settings):
            yield item

    async def close(self) -> None:
        await self.loader.close()

    def sibling(self, name: str, temperature: float | None, max_tokens: int | None) -> Model:
        """Another model of the default model's endpoint (what agents name), deferred too."""

        def pick(roles: ModelRoles) -> Model:
            # Model has no `sibling`: the default model's provider has (OpenAIModel).
            make: Callable[[str, float | None, int | None], Model]
            make = getattr(roles.default, "sibling")  # noqa: B009
            return make(name, temperature, max_tokens)

        limit = max_tokens if max_tokens is not None else self.max_tokens  # as OpenAIModel's
        return DeferredModel(name, self.loader, pick, limit)


def deferred_roles(
    names: dict[RoleName | None, str | None],
    loader: ModelLoader,
    calls: asyncio.Semaphore | None,
    max_tokens: int | None = None,
) -> ModelRoles:
    """Deferred models for the roles `names` gives a model (None: the default's name),
    each with the reply limit its model is built with (`max_tokens`)."""

    def model(role: RoleName | None) -> DeferredModel | None:
        name = names.get(role)
        if not name:
            return None
        if role is None:
            return DeferredModel(name, loader, lambda roles: roles.default, max_tokens)
        return DeferredModel(name, loader, lambda roles: roles.for_role(role), max_tokens)

    default = model(None)
    assert default is not None
    return ModelRoles(
        default=default,
        planner=model("planner"),
        executor=model("executor"),
        critic=model("critic"),
        synthesizer=model("synthesizer"),
        router=model("router"),
        calls=calls,
    )


def preload(models: ModelRoles | None) -> None:
    """Start importing the SDK of `models` when they are deferred (else nothing)."""
    if models is not None and isinstance(models.default, DeferredModel):
        models.default.loader.preload()
