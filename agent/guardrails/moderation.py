"""The `moderation` guardrail kind: a moderation model on an OpenAI-compatible
`/v1/moderations` endpoint (OpenAI's own, or a server such as the fake model's).

The endpoint and its key are the server's (`ModerationEndpoint`, from its settings): a
declaration chooses a model and what counts, never where the text (or the key) goes.
The wiring builds one `Moderations` and registers its `check` as the factory of the
kind (`register_kind("moderation", moderations.check)`); it closes it when the server
stops. A check's options:

    model       the moderation model (default: the endpoint's)
    categories  the categories that count, by the wire's names ("harassment",
                "self-harm/intent", ...); default: every category
    threshold   a score floor, one number for every category or {category: number}: a
                category with a floor counts when its score reaches it (whatever the
                endpoint's own flag says); one without counts when the endpoint flags it

Each category that counts is one finding, rule `moderation:<category>`, without spans
(the model judges the whole text). An endpoint that fails, is slow past its timeout or
answers something unusable makes the check raise GuardrailUnavailable."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import openai

from agent.guardrails.base import GuardrailUnavailable
from records.guardrails import CheckSpec, Finding, Subject

KIND = "moderation"
MAX_CATEGORY = 64
"""Characters of a category name kept (the endpoint's names are untrusted)."""


@dataclass(frozen=True, slots=True)
class ModerationEndpoint:
    """Where moderation checks send their text: the server's settings."""

    base_url: str
    """The OpenAI-compatible base URL, ending in /v1."""
    api_key: str = ""
    model: str = "omni-moderation-latest"
    """The model a check uses when it names none."""
    timeout_seconds: float = 10.0
    """The longest one request may take; past it the check is unavailable."""


@dataclass(frozen=True, slots=True)
class ModerationOptions:
    """A `moderation` check's options, checked."""

    model: str
    categories: frozenset[str] | None
    """None: every category counts."""
    thresholds: Mapping[str, float]
    """Score floors by category ("*": every category without one of its own)."""

    @classmethod
    def parse(cls, check: str, options: Mapping[str, Any], default_model: str) -> ModerationOptions:
        """The options of check `check`; ValueError naming the one that is wrong."""
        model = options.get("model", default_model)
        if not isinstance(model, str) or not model:
            raise ValueError(f"guardrail {check!r}: `model` must be a model's name")
        categories = options.get("categories")
        if categories is not None and (
            isinstance(categories, str)
            or not isinstance(categories, list | tuple)
            or not categories
            or not all(isinstance(c, str) and c for c in categories)
        ):
            raise ValueError(f"guardrail {check!r}: `categories` must be a list of names")
        return cls(
            model,
            None if categories is None else frozenset(categories),
            _thresholds(check, options.get("threshold")),
        )

    def floor(self, category: str) -> float | None:
        return self.thresholds.get(category, self.thresholds.get("*"))


def _thresholds(check: str, threshold: Any) -> dict[str, float]:
    if threshold is None:
        return {}
    pairs = threshold.items() if isinstance(threshold, Mapping) else [("*", threshold)]
    floors: dict[str, float] = {}
    for category, value in pairs:
        if (
            not isinstance(category, str)
            or isinstance(value, bool)
            or not isinstance(value, int | float)
            or not 0 <= value <= 1
        ):
            raise ValueError(
                f"guardrail {check!r}: `threshold` must be a score from 0 to 1, or "
                "{category: score}"
            )
        floors[category] = float(value)
    return floors


class Moderations:
    """The factory of `moderation` checks and the one client they share."""

    def __init__(
        self, endpoint: ModerationEndpoint, client: openai.AsyncOpenAI | None = None
    ) -> None:
        self.endpoint = endpoint
        self._client = client or openai.AsyncOpenAI(
            base_url=endpoint.base_url,
            api_key=endpoint.api_key or "unused",
            timeout=endpoint.timeout_seconds,
            max_retries=0,  # a retry would hold the stream up; the fail mode decides
        )

    def check(self, spec: CheckSpec) -> ModerationCheck:
        """A check of `spec` (ValueError for options that are wrong)."""
        options = ModerationOptions.parse(spec.name, spec.options, self.endpoint.model)
        return ModerationCheck(spec, options, self._client)

    async def close(self) -> None:
        await self._client.close()


class ModerationCheck:
    """One declared check asking the moderation model."""

    needs_model = True

    def __init__(
        self, spec: CheckSpec, options: ModerationOptions, client: openai.AsyncOpenAI
    ) -> None:
        self.spec = spec
        self.options = options
        self._client = client

    async def inspect(self, text: str, subject: Subject) -> list[Finding]:
        try:
            raw = await self._client.moderations.with_raw_response.create(
                model=self.options.model, input=text
            )
            body = raw.http_response.json()
        except openai.APIError as error:
            raise GuardrailUnavailable(self.spec.name, f"moderation endpoint: {error}") from None
        except ValueError:  # the body is not JSON
            raise GuardrailUnavailable(self.spec.name, "moderation endpoint: not JSON") from None
        try:
            return self._findings(body)
        except (ValueError, TypeError, LookupError) as bad:
            detail = f"moderation endpoint: an unusable answer ({bad})"
            raise GuardrailUnavailable(self.spec.name, detail) from None

    def _findings(self, body: Any) -> list[Finding]:
        """The categories that count in the first result; ValueError for a body that is
        not a moderation answer."""
        result = body["results"][0]
        flags, scores = result["categories"], result["category_scores"]
        if not isinstance(flags, dict) or not isinstance(scores, dict):
            raise ValueError("categories and category_scores must be objects")
        found: list[Finding] = []
        for category in sorted(set(flags) | set(scores)):
            if self.options.categories is not None and category not in self.options.categories:
                continue
            score = scores.get(category)
            if score is not None and (
                isinstance(score, bool) or not isinstance(score, int | float) or math.isnan(score)
            ):
                raise ValueError(f"the score of {category!r} is not a number")
            floor = self.options.floor(category)
            counts = (
                (score is not None and score >= floor)
                if floor is not None
                else (flags.get(category) is True)
            )
            if counts:
                found.append(_finding(self.spec.name, category, score))
        return found


def _finding(check: str, category: str, score: float | None) -> Finding:
    name = "".join(c for c in category[:MAX_CATEGORY] if c.isprintable())
    scored = f" (score {score:.3f})" if score is not None else ""
    return Finding(check, f"moderation:{name}", f"the moderation model flags {name}{scored}")
