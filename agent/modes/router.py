"""Auto mode: plan-and-execute for multi-part tasks, function calling otherwise.

The heuristic, cheap and deterministic: a task is multi-part when it has a
numbered or bulleted list of two or more items, or three or more clauses
joined by sequencing words ("then", "after that", "finally", ...) or by
sentence ends, or at least two sequencing words. Models without native tool
calling get text ReAct instead of function calling.
"""

from __future__ import annotations

import re

from agent.tasks import ExecutionMode

LIST_ITEM = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s+\S", re.MULTILINE)
SEQUENCE_WORDS = re.compile(
    r"\b(then|after that|afterwards|next|finally|first|second|third|lastly|and also)\b",
    re.IGNORECASE,
)
SENTENCE_END = re.compile(r"[.!?;]\s+(?=[A-Z0-9])")


def is_multi_part(task: str) -> bool:
    if len(LIST_ITEM.findall(task)) >= 2:
        return True
    sequencing = len(SEQUENCE_WORDS.findall(task))
    if sequencing >= 2:
        return True
    clauses = len(SENTENCE_END.split(task.strip()))
    return (clauses >= 3 and sequencing >= 1) or clauses >= 4


def choose_mode(task: str, tool_calling: bool = True) -> ExecutionMode:
    if is_multi_part(task):
        return ExecutionMode.PLAN_AND_EXECUTE
    return ExecutionMode.FUNCTION_CALLING if tool_calling else ExecutionMode.TEXT_REACT
