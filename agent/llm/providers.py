"""Named model providers, a circuit breaker each, and a model that falls back along a chain.

The operator defines providers (`server/wiring/providers.py` reads them): each an
OpenAI-compatible endpoint with its own key, allowed models, request timeout and
concurrency cap. An agent names the provider (and model) per role and a fallback
chain; its model for a role is then a `FallbackModel` over those candidates, tried in
order. A candidate is passed over when its provider's breaker is open; a call that
fails for a reason another provider may not share (a timeout, a connection error, a
5xx, a 429: `ModelError.retryable`) counts against the provider's breaker and the
next candidate is tried. Any other failure (a 400) ends the call: another provider
would refuse the same request. Each move along the chain and each breaker that opens is
counted (`agent.metrics`: agentd_provider_fallbacks_total,
agentd_provider_breaker_openings_total).

A stream that fails after some of its text was already sent yields `Discarded`
before the next candidate's stream starts, so the run can tell clients to drop what
they showed (`stream_discarded` event).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import structlog

from agent import metrics
from agent.llm.base import Model, ModelError
from records.messages import (
    Discarded,
    Done,
    FailedAttempt,
    Message,
    ModelResponse,
    ModelSettings,
    ReasoningChunk,
    StreamItem,
    TextChunk,
    ToolDefinition,
)
from records.usage.prices import Price

log = structlog.get_logger(__name__)

DEFAULT_PROVIDER = "default"
"""The server's own endpoint (AGENTD_LLM_BASE_URL) as a provider agents may name, unless
the operator defines a provider of that name."""

ModelMaker = Callable[[str, float | None, int | None], Model]
"""A provider's model by name, with a temperature and a reply limit (None: defaults)."""


class CircuitBreaker:
    """`failures` retryable failures within `window_seconds` open the breaker for
    `open_seconds`; then one trial call is let through (half-open): its success closes
    the breaker, its failure opens it again."""

    def __init__(
        self,
        failures: int = 3,
        window_seconds: float = 60.0,
        open_seconds: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.failures = failures
        self.window_seconds = window_seconds
        self.open_seconds = open_seconds
        self._clock = clock
        self._recent: deque[float] = deque()
        self._opened_at: float | None = None
        self._trial = False

    @property
    def state(self) -> str:
        """ "closed", "open" or "half_open"."""
        if self._opened_at is None:
            return "closed"
        if self._clock() - self._opened_at < self.open_seconds:
            return "open"
        return "half_open"

    def allows(self) -> bool:
        """Whether a call may go to the provider now (a half-open breaker lets one)."""
        state = self.state
        if state == "closed":
            return True
        if state == "half_open" and not self._trial:
            self._trial = True
            return True
        return False

    def succeeded(self) -> None:
        self._recent.clear()
        self._opened_at = None
        self._trial = False

    def failed(self) -> bool:
        """Count a retryable failure; whether it opened the breaker (one that was open
        already, a call that failed after it opened, is not opened again)."""
        now = self._clock()
        self._recent.append(now)
        while self._recent and now - self._recent[0] > self.window_seconds:
            self._recent.popleft()
        if not (self._trial or len(self._recent) >= self.failures):
            return False
        opened = self.state != "open"
        self._opened_at = now
        self._trial = False
        self._recent.clear()
        return opened


@dataclass
class Provider:
    """One endpoint the operator defined. Its key lives only in the client `make` uses."""

    name: str
    make: ModelMaker
    models: tuple[str, ...] = ()
    """The models agents may use on it; empty: any."""
    calls: asyncio.Semaphore | None = None
    """At most this many calls in flight to it (None: no cap of its own)."""
    breaker: CircuitBreaker = field(default_factory=CircuitBreaker)
    close: Callable[[], object] | None = None
    """Releases its client (awaited if it returns an awaitable)."""
    prices: Mapping[str, Price] = field(default_factory=dict)
    """The prices of its models, by the exact model name asked for (the providers file's
    `models:` entries); a model without one costs 0 and is counted as unpriced."""

    def allows(self, model: str) -> bool:
        return not self.models or model in self.models


@dataclass(frozen=True, slots=True)
class Candidate:
    provider: Provider
    model: Model


class FallbackModel(Model):
    """A model tried on each candidate in turn (see the module's docstring)."""

    def __init__(
        self, candidates: Sequence[Candidate], name: str = "", refused: Sequence[str] = ()
    ) -> None:
        self.candidates = tuple(candidates)
        self.refused = tuple(refused)
        """Why links of the chain the agent named are not in it (an unknown provider, a
        model the provider does not allow); said when no candidate answers."""
        first = self.candidates[0].model if self.candidates else None
        self.name = first.name if first is not None else name
        self.max_tokens = first.max_tokens if first is not None else None
        self.sees_images = any(c.model.sees_images for c in self.candidates)
        """Images are read for the chain when any of its models sees them; each model's
        request builder gives one that does not a note instead."""

    @property
    def providers(self) -> list[str]:
        return [c.provider.name for c in self.candidates]

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition] = (),
        settings: ModelSettings | None = None,
    ) -> ModelResponse:
        problems = list(self.refused)
        failed: list[FailedAttempt] = []
        for index, candidate in enumerate(self.candidates):
            if not _allowed(candidate, problems):
                continue
            provider = candidate.provider
            started = time.monotonic()
            try:
                async with _slot(provider):
                    response = await candidate.model.complete(messages, tools, settings)
            except ModelError as error:
                _failed(candidate, error, problems, failed, started, self._more_after(index))
                continue
            provider.breaker.succeeded()
            return _answered(response, candidate, failed)
        raise _none_answered(problems, failed)

    async def stream(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition] = (),
        settings: ModelSettings | None = None,
    ) -> AsyncIterator[StreamItem]:
        problems = list(self.refused)
        failed: list[FailedAttempt] = []
        for index, candidate in enumerate(self.candidates):
            if not _allowed(candidate, problems):
                continue
            sent = 0
            started = time.monotonic()
            try:
                async with _slot(candidate.provider):
                    async for item in candidate.model.stream(messages, tools, settings):
                        if isinstance(item, Done):
                            candidate.provider.breaker.succeeded()
                            yield Done(_answered(item.response, candidate, failed))
                            return
                        if isinstance(item, TextChunk | ReasoningChunk):
                            sent += len(item.text)
                        yield item
            except ModelError as error:
                _failed(candidate, error, problems, failed, started, self._more_after(index))
                if sent:
                    yield Discarded(candidate.provider.name, candidate.model.name, error.message)
                continue
        raise _none_answered(problems, failed)

    def _more_after(self, index: int) -> bool:
        """Whether the chain has a candidate after the one at `index` to move on to."""
        return index + 1 < len(self.candidates)


def _allowed(candidate: Candidate, problems: list[str]) -> bool:
    """Whether the candidate's breaker lets a call through now (asked only when its turn
    comes: a half-open breaker's one trial is not spent on a candidate never tried)."""
    if candidate.provider.breaker.allows():
        return True
    problems.append(f"{candidate.provider.name}: circuit open, skipped")
    log.info("provider skipped: its circuit is open", provider=candidate.provider.name)
    return False


@contextlib.asynccontextmanager
async def _slot(provider: Provider) -> AsyncIterator[None]:
    if provider.calls is None:
        yield
        return
    async with provider.calls:
        yield


def _answered(
    response: ModelResponse, candidate: Candidate, failed: list[FailedAttempt]
) -> ModelResponse:
    return replace(
        response,
        provider=candidate.provider.name,
        model=response.model or candidate.model.name,
        asked_model=candidate.model.name,
        failed=tuple(failed),
    )


def _failed(
    candidate: Candidate,
    error: ModelError,
    problems: list[str],
    failed: list[FailedAttempt],
    started: float,
    more: bool,
) -> None:
    """The failure kept for the usage ledger (`failed`); a retryable one counts against
    the provider's breaker and, when the chain has another candidate (`more`), as a
    fallback (agentd_provider_fallbacks_total)."""
    seconds = time.monotonic() - started
    failed.append(
        FailedAttempt(candidate.provider.name, candidate.model.name, seconds, error.message)
    )
    if not error.retryable:
        error.failed = tuple(failed)
        raise error  # another provider would refuse the same request
    if candidate.provider.breaker.failed():
        metrics.count_breaker_opened(candidate.provider.name)
    if more:
        metrics.count_fallback(candidate.provider.name, candidate.model.name)
    problems.append(f"{candidate.provider.name} ({candidate.model.name}): {error.message}")
    log.warning(
        "provider failed; trying the next in the chain",
        provider=candidate.provider.name,
        model=candidate.model.name,
        error=error.message,
        breaker=candidate.provider.breaker.state,
    )


def _none_answered(problems: list[str], failed: list[FailedAttempt]) -> ModelError:
    error = ModelError("no provider answered: " + ("; ".join(problems) or "none is configured"))
    error.failed = tuple(failed)
    return error


def chain(
    providers: Mapping[str, Provider],
    links: Sequence[tuple[str, str]],
    make: Callable[[Provider, str], Model],
) -> FallbackModel:
    """A fallback model over `links` (provider, model), in order; links naming a provider
    that is not defined, or a model it does not allow, are left out and said why."""
    candidates: list[Candidate] = []
    refused: list[str] = []
    for name, model in links:
        provider = providers.get(name)
        if provider is None:
            refused.append(f"{name}: no such provider is defined (AGENTD_PROVIDERS_FILE)")
        elif not provider.allows(model):
            refused.append(f"{name}: model {model!r} is not among its allowed models")
        else:
            candidates.append(Candidate(provider, make(provider, model)))
    return FallbackModel(candidates, links[0][1] if links else "", refused)
