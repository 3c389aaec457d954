"""Auto mode: plan-and-execute for multi-part tasks, function calling otherwise.

The heuristic, cheap and deterministic: a task is multi-part when it has a
numbered or bulleted list of two or more items, or three or more clauses
joined by sequencing words ("then", "after that", "finally", ...; in Chinese
首先, 然后, 接着, 之后, 最后, 第一步/第二步, ...) or by sentence ends (also 。！？；),
or at least two sequencing words. Numbered lists count in Chinese forms too (1、 （1）
一、). Models without native tool calling get text ReAct instead of function calling.
With a router model configured, auto mode asks it instead (`agent.modes.llm_router`).
"""

from __future__ import annotations

import re

from records.execution import ExecutionMode

LIST_ITEM = re.compile(
    r"^\s*(?:(?:\d+[.)]|[-*•])\s+\S|\d+[、．）]\s*\S|[（(]\d+[）)]\s*\S|[一二三四五六七八九十]+、\s*\S)",
    re.MULTILINE,
)
SEQUENCE_WORDS = re.compile(
    r"\b(then|after that|afterwards|next|finally|first|second|third|lastly|and also)\b",
    re.IGNORECASE,
)
SENTENCE_END = re.compile(r"[.!?;]\s+(?=[A-Z0-9])|[。！？；]\s*(?=\S)")
CHINESE_SEQUENCE = re.compile(
    r"首先|其次|然后|接着|之后|随后|再然后|最后|最终|第[一二三四五六七八九十\d]+步|第[一二三四五六七八九十\d]+[,，、]"
)
"""Sequencing words of Chinese (no spaces between words, so no word boundaries)."""


def is_multi_part(goal: str) -> bool:
    if len(LIST_ITEM.findall(goal)) >= 2:
        return True
    sequencing = len(SEQUENCE_WORDS.findall(goal)) + len(CHINESE_SEQUENCE.findall(goal))
    if sequencing >= 2:
        return True
    clauses = len(SENTENCE_END.split(goal.strip()))
    return (clauses >= 3 and sequencing >= 1) or clauses >= 4


def choose_mode(goal: str, tool_calling: bool = True) -> ExecutionMode:
    if is_multi_part(goal):
        return ExecutionMode.PLAN_AND_EXECUTE
    return ExecutionMode.FUNCTION_CALLING if tool_calling else ExecutionMode.TEXT_REACT
