"""The checks every key of an agent definition goes through (`records.agents.definition`): one error
type, and the readers of a flag, a text, a whole number and a number."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class AgentInvalidError(ValueError):
    """An agent definition that cannot be used; `field` names what is wrong."""

    def __init__(self, source: str, field: str, problem: str) -> None:
        super().__init__(f"{source}: {field}: {problem}")
        self.source, self.field, self.problem = source, field, problem


def flag_key(data: Mapping[str, Any], key: str, source: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise AgentInvalidError(source, key, "must be true or false")
    return value


def text_key(data: Mapping[str, Any], key: str, source: str, limit: int) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise AgentInvalidError(source, key, "must be text")
    if len(value) > limit:
        raise AgentInvalidError(source, key, f"is {len(value)} characters; at most {limit}")
    return value


def whole_key(
    data: Mapping[str, Any], key: str, source: str, default: Any, low: int, high: int = 2**31
) -> Any:
    value = data.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise AgentInvalidError(source, key, f"must be a whole number from {low} to {high}")
    return value


def number_key(
    data: Mapping[str, Any], key: str, source: str, low: float, high: float = 86_400.0
) -> float | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise AgentInvalidError(source, key, f"must be a number from {low:g} to {high:g}")
    return float(value)
