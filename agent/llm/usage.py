"""Embedding tokens, charged to the task that spent them.

The engine opens `counting()` around work that may embed (a tool call, the automatic
recall of a prompt); an embedder calls `charge(tokens)` once per successful call; the
engine then adds what was counted to the task's usage and budget. Outside `counting()`
(an RPC adding documents) `charge` counts nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(slots=True)
class EmbeddingUsage:
    tokens: int = 0
    calls: int = 0


_COUNTER: ContextVar[EmbeddingUsage | None] = ContextVar("agentd_embedding_usage", default=None)


@contextmanager
def counting() -> Iterator[EmbeddingUsage]:
    """Count the embedding tokens spent inside (also in tasks started inside)."""
    counter = EmbeddingUsage()
    token = _COUNTER.set(counter)
    try:
        yield counter
    finally:
        _COUNTER.reset(token)


def charge(tokens: int) -> None:
    counter = _COUNTER.get()
    if counter is not None:
        counter.tokens += max(0, tokens)
        counter.calls += 1
