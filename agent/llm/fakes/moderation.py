"""`/v1/moderations` of the fake model server, in OpenAI's shape: one result per input
text with `flagged`, `categories` (every category, true or false),
`category_scores` and `category_applied_input_types`. A text is flagged when it holds
one of the server's words (case-sensitive, anywhere in it), under that word's category
and with a score of 0.99 (0.001 for every other category). By default the word is
`UNSAFE` (harassment); `agentd fake-llm --moderation-words WORD[=CATEGORY],...` names
others. Tests make it fail (`fail_status`) to see how agentd takes a moderation endpoint
that misbehaves."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from agent.llm.fakes.embeddings import _error, scripted_body

CATEGORIES = (
    "harassment",
    "harassment/threatening",
    "hate",
    "hate/threatening",
    "illicit",
    "illicit/violent",
    "self-harm",
    "self-harm/instructions",
    "self-harm/intent",
    "sexual",
    "sexual/minors",
    "violence",
    "violence/graphic",
)
"""OpenAI's moderation categories, as its wire names them."""
DEFAULT_WORDS: Mapping[str, str] = {"UNSAFE": "harassment"}
FLAGGED_SCORE = 0.99
CLEAR_SCORE = 0.001


def parse_words(spec: str) -> dict[str, str]:
    """`WORD[=CATEGORY],...` as {word: category} (harassment when none is named);
    ValueError for an empty word or a category OpenAI does not have."""
    words: dict[str, str] = {}
    for item in spec.split(","):
        word, _, category = item.strip().partition("=")
        category = category.strip() or "harassment"
        if not word.strip():
            raise ValueError(f"an empty moderation word in {spec!r}")
        if category not in CATEGORIES:
            raise ValueError(f"{category!r} is not a moderation category ({', '.join(CATEGORIES)})")
        words[word.strip()] = category
    return words


def result(text: str, words: Mapping[str, str]) -> dict[str, Any]:
    """One text's moderation result."""
    hit = {category for word, category in words.items() if word in text}
    return {
        "flagged": bool(hit),
        "categories": {c: c in hit for c in CATEGORIES},
        "category_scores": {c: FLAGGED_SCORE if c in hit else CLEAR_SCORE for c in CATEGORIES},
        "category_applied_input_types": {c: ["text"] for c in CATEGORIES},
    }


@dataclass
class FakeModeration:
    words: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_WORDS))
    """The words flagged, each with its category."""
    fail_status: int = 0
    """Answer every request with this HTTP status (0: answer normally)."""
    requests: list[dict[str, Any]] = field(default_factory=list)
    """Every request body, in order."""

    async def handle(self, request: web.Request) -> web.Response:
        body = await scripted_body(request, self.requests, self.fail_status, "moderations")
        if isinstance(body, web.Response):
            return body
        texts = body.get("input")
        if isinstance(texts, str):
            texts = [texts]
        if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
            return _error(400, "`input` must be a string or a non-empty list of strings")
        return web.json_response(
            {
                "id": f"modr-{len(self.requests)}",
                "model": body.get("model", "fake-moderation"),
                "results": [result(t, self.words) for t in texts],
            }
        )
