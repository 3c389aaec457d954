"""What an agent's `knowledge:` mapping asks of knowledge search, and how its tasks' tool
calls learn it:

    knowledge:
      bases: [support, faq]   # the only knowledge bases its search_knowledge may search
      rerank: true            # rerank search_knowledge's passages (false: keep the fused order)

Unset keys are the server's: without `bases`, any knowledge base of the tenant (grants
decide); reranking is on when AGENTD_RERANK_MODEL is set and AGENTD_KNOWLEDGE_RERANK is
true. The engine opens `preferring(agent.knowledge)` around the work of a task's tool calls
(`TaskRun.embedding_work`); `search_knowledge` reads it with `rerank_preference()` and
`allowed_bases()`, and `scoped(spec, knowledge)` is the tool as a task of the agent is
shown it (its bases listed). Light on purpose: imported before the server is up.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace
from typing import Any

from records.agents.checks import AgentInvalidError
from records.tools.model import JSONValue, ToolSpec

KEYS = ("bases", "rerank")
MAX_BASES = 32
BASE_ID = re.compile(r"^[a-z][a-z0-9_.:-]{0,63}$")
"""A knowledge base's id (as `records.knowledge.items.NAMESPACE_PATTERN`)."""
SEARCH_KNOWLEDGE = "search_knowledge"
SEARCH_DESCRIPTION = (
    "Search a knowledge base for passages that answer a question. Returns the "
    "passages with their sources (document id and chunk) to cite; returns nothing "
    "when no passage is relevant enough."
)
BASE_ARGUMENT: dict[str, JSONValue] = {
    "type": "string",
    "pattern": BASE_ID.pattern,
    "description": "The knowledge base's id.",
}

_RERANK: ContextVar[bool | None] = ContextVar("agentd_knowledge_rerank", default=None)
_BASES: ContextVar[tuple[str, ...] | None] = ContextVar("agentd_knowledge_bases", default=None)


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
        if key == "bases":
            checked["bases"] = _bases(setting, source)
        elif not isinstance(setting, bool):
            raise AgentInvalidError(source, f"knowledge.{key}", "must be true or false")
        else:
            checked[str(key)] = setting
    return checked


def _bases(value: Any, source: str) -> tuple[str, ...]:
    problem = (
        f"a list of 1 to {MAX_BASES} knowledge base ids (leave it out for every knowledge "
        "base of the tenant)"
    )
    if not isinstance(value, list) or not 0 < len(value) <= MAX_BASES:
        raise AgentInvalidError(source, "knowledge.bases", problem)
    for index, name in enumerate(value):
        if not isinstance(name, str) or not BASE_ID.fullmatch(name):
            raise AgentInvalidError(
                source,
                f"knowledge.bases[{index}]",
                "a knowledge base id: 1-64 of a-z0-9_.:- starting with a letter",
            )
    return tuple(dict.fromkeys(value))


def bases_of(knowledge: Mapping[str, Any] | None) -> tuple[str, ...] | None:
    """The knowledge bases an agent's `knowledge:` limits search to; None: no limit."""
    bases = (knowledge or {}).get("bases")
    return tuple(bases) if isinstance(bases, (list, tuple)) and bases else None


@contextmanager
def preferring(knowledge: Mapping[str, Any] | None) -> Iterator[None]:
    """Knowledge searches inside (also in tasks started inside) follow `knowledge`."""
    wanted = (knowledge or {}).get("rerank")
    token = _RERANK.set(wanted if isinstance(wanted, bool) else None)
    limit = _BASES.set(bases_of(knowledge))
    try:
        yield
    finally:
        _BASES.reset(limit)
        _RERANK.reset(token)


def rerank_preference() -> bool | None:
    """The running agent's `knowledge.rerank`, or None when it says nothing."""
    return _RERANK.get()


def allowed_bases() -> tuple[str, ...] | None:
    """The running agent's `knowledge.bases`, or None when it names none (any base)."""
    return _BASES.get()


def scoped(spec: ToolSpec, knowledge: Mapping[str, Any] | None) -> ToolSpec:
    """The built-in `search_knowledge` as an agent with `knowledge.bases` is shown it:
    those bases listed in its description and argument, the argument optional when there
    is one. Any other tool, or an agent naming no bases: `spec` as it is."""
    bases = bases_of(knowledge)
    if bases is None or spec.name != SEARCH_KNOWLEDGE or spec.source != "builtin":
        return spec
    listed = ", ".join(bases)
    argument: dict[str, JSONValue] = {
        **BASE_ARGUMENT,
        "description": f"The knowledge base's id: one of {listed}.",
    }
    required: list[JSONValue] = ["query"]
    if len(bases) == 1:
        argument["default"] = bases[0]
        argument["description"] = f"The knowledge base's id: {listed} (the only one)."
    else:
        required.append("knowledge_base")
    properties = spec.parameters.get("properties")
    parameters: dict[str, JSONValue] = {
        **spec.parameters,
        "properties": {
            **(properties if isinstance(properties, dict) else {}),
            "knowledge_base": argument,
        },
        "required": required,
    }
    description = f"{SEARCH_DESCRIPTION} You may search only these knowledge bases: {listed}."
    return replace(spec, description=description, parameters=parameters)


def scoped_specs(
    specs: Mapping[str, ToolSpec], knowledge: Mapping[str, Any] | None
) -> dict[str, ToolSpec]:
    """`specs` with `search_knowledge` as `scoped` shows it to an agent of `knowledge`."""
    return {name: scoped(spec, knowledge) for name, spec in specs.items()}
