"""How an agent's tasks remember the earlier turns of their conversation.

The server's settings give the defaults (about 2,000 tokens or the last 20
messages, tool calls summarised, older turns folded into a running summary by the
model); an agent's `memory:` mapping overrides any of them:

    memory:
      budget_tokens: 2000       # earlier turns (and their summary) sent with a task
      max_messages: 20          # earlier messages sent with a task
      tool_calls: summarize     # keep | summarize | drop
      tool_result_tokens: 500   # an earlier tool result past this is cut, with a marker
      compaction: summarize     # summarize | drop: turns that no longer fit
      summary_tokens: 400       # the running summary's size
      recall_top_k: 5           # long-term memories of the user put into the prompt
      extract: false            # propose memory changes at the end of each turn
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

ToolCallPolicy = Literal["keep", "summarize", "drop"]
CompactionPolicy = Literal["summarize", "drop"]

_WHOLE: dict[str, tuple[int, int]] = {
    "budget_tokens": (100, 1_000_000),
    "max_messages": (0, 1_000),
    "tool_result_tokens": (10, 100_000),
    "summary_tokens": (20, 20_000),
    "recall_top_k": (0, 50),
}
_CHOICES: dict[str, tuple[str, ...]] = {
    "tool_calls": ("keep", "summarize", "drop"),
    "compaction": ("summarize", "drop"),
}
_FLAGS = ("extract",)
KEYS = (*_WHOLE, *_CHOICES, *_FLAGS)


class MemoryInvalidError(ValueError):
    """A `memory:` setting that cannot be used; `key` names it."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"{key}: {problem}")
        self.key, self.problem = key, problem


@dataclass(frozen=True, slots=True)
class MemoryPolicy:
    budget_tokens: int = 2_000
    """Most tokens of earlier turns (their summary included) sent with a task."""
    max_messages: int = 20
    """Most earlier messages sent with a task."""
    tool_calls: ToolCallPolicy = "summarize"
    """Earlier tool calls: kept as calls and results, summarised in a line each, or dropped."""
    tool_result_tokens: int = 500
    """An earlier tool result longer than this is cut, with a marker."""
    compaction: CompactionPolicy = "summarize"
    """Turns that no longer fit: folded into the running summary by the model, or dropped."""
    summary_tokens: int = 400
    """Most tokens of the running summary."""
    recall_top_k: int = 0
    """Long-term memories of the user put into the prompt (`agent.knowledge.recall`); the
    server's AGENTD_MEMORY_RECALL_TOP_K when the agent does not say."""
    extract: bool = False
    """After each turn, the model proposes changes to the user's long-term memories from
    it (`agent.knowledge.extraction`)."""

    def overridden(self, settings: Mapping[str, Any]) -> MemoryPolicy:
        """This policy with an agent's `memory:` settings (checked) in place."""
        return replace(self, **memory_settings(settings)) if settings else self


def memory_settings(value: Any) -> dict[str, Any]:
    """An agent's `memory:` mapping, checked; MemoryInvalidError names the key at fault."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise MemoryInvalidError("(memory)", f"a mapping of {', '.join(KEYS)}")
    checked: dict[str, Any] = {}
    for key, setting in value.items():
        if key in _WHOLE:
            low, high = _WHOLE[key]
            if isinstance(setting, bool) or not isinstance(setting, int):
                raise MemoryInvalidError(key, f"must be a whole number from {low} to {high}")
            if not low <= setting <= high:
                raise MemoryInvalidError(key, f"must be a whole number from {low} to {high}")
            checked[key] = setting
        elif key in _FLAGS:
            if not isinstance(setting, bool):
                raise MemoryInvalidError(key, "must be true or false")
            checked[key] = setting
        elif key in _CHOICES:
            if setting not in _CHOICES[key]:
                raise MemoryInvalidError(key, f"one of {', '.join(_CHOICES[key])}")
            checked[key] = setting
        else:
            raise MemoryInvalidError(str(key), f"unknown key; known: {', '.join(KEYS)}")
    return checked
