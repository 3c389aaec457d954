"""What an agent's `knowledge:` mapping asks of knowledge search, and how its tasks' tool
calls learn it:

    knowledge:
      rerank: true      # rerank search_knowledge's passages (false: keep the fused order)

Unset keys are the server's (reranking: on when AGENTD_RERANK_MODEL is set and
AGENTD_KNOWLEDGE_RERANK is true). The engine opens `preferring(agent.knowledge)` around
the work of a task's tool calls (`TaskRun.embedding_work`); `search_knowledge` reads it
with `rerank_preference()`. Light on purpose: imported before the server is up.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from agent.agent_checks import AgentInvalidError

KEYS = ("rerank",)

_RERANK: ContextVar[bool | None] = ContextVar("agentd_knowledge_rerank", default=None)


def knowledge_key(value: Any, source: str) -> dict[str, Any]:
    """An agent's `knowledge:` mapping, checked; AgentInvalidError names the key at fault."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise AgentInvalidError(source, "knowledge", f"a mapping of {', '.join(KEYS)}")
    checked: dict[str, Any] = {}
    for key, setting in value.items():
        if key not in KEYS:
            raise AgentInvalidError(
                source, f"knowledge.{key}", f"unknown key; known: {', '.join(KEYS)}"
            )
        if not isinstance(setting, bool):
            raise AgentInvalidError(source, f"knowledge.{key}", "must be true or false")
        checked[str(key)] = setting
    return checked


@contextmanager
def preferring(knowledge: Mapping[str, Any] | None) -> Iterator[None]:
    """Knowledge searches inside (also in tasks started inside) follow `knowledge`."""
    wanted = (knowledge or {}).get("rerank")
    token = _RERANK.set(wanted if isinstance(wanted, bool) else None)
    try:
        yield
    finally:
        _RERANK.reset(token)


def rerank_preference() -> bool | None:
    """The running agent's `knowledge.rerank`, or None when it says nothing."""
    return _RERANK.get()
