"""What a caller asks the engine to do, and the checks a request passes on entry."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent.limits import (
    DEFAULT_MAX_ITERATIONS,
    MAX_CONTEXT_BYTES,
    MAX_ITERATIONS_LIMIT,
    MAX_TASK_CHARS,
)
from agent.tasks import ExecutionMode
from core.errors import FieldViolation, InvalidArgumentError
from core.identity import CallContext
from core.names import tool_name_problem
from tools.audit import digest
from tools.model import ToolSpec
from tools.registry import ToolRegistry


@dataclass(frozen=True, slots=True)
class TaskRequest:
    """What a caller asks the engine to do."""

    task: str
    tools: tuple[str, ...] = ()
    """Allow-list; empty means every tool the caller may use."""
    context: Mapping[str, Any] = field(default_factory=dict)
    max_iterations: int = 0
    """0 means the default."""
    mode: ExecutionMode = ExecutionMode.AUTO
    token_budget: int = 0
    """0 means the configured default."""
    idempotency_key: str = ""
    """When set, a retry with the same key and request returns the same task."""
    timeout_seconds: float = 0.0
    """The task's own time limit; 0 means the server's."""
    labels: Mapping[str, str] = field(default_factory=dict)
    """The caller's labels for the task."""

    def fingerprint(self) -> str:
        return digest(
            {
                "task": self.task,
                "tools": list(self.tools),
                "context": dict(self.context),
                "max_iterations": self.max_iterations,
                "mode": self.mode.value,
                "token_budget": self.token_budget,
                "timeout_seconds": self.timeout_seconds,
                "labels": dict(self.labels),
            }
        )


MAX_LABELS = 16
MAX_LABEL_VALUE = 256
LABEL_KEY = re.compile(r"^[a-z0-9_.:/-]{1,63}$")


def label_violations(labels: Mapping[str, str], field_name: str = "labels") -> list[FieldViolation]:
    """What is wrong with a set of labels (also used for label filters)."""
    found: list[FieldViolation] = []
    if len(labels) > MAX_LABELS:
        found.append(FieldViolation(field_name, f"has {len(labels)} labels; at most {MAX_LABELS}"))
    for key, value in sorted(labels.items()):
        if not LABEL_KEY.fullmatch(key):
            found.append(
                FieldViolation(f"{field_name}[{key[:63]}]", "keys are 1 to 63 of [a-z0-9_.:/-]")
            )
        elif len(value) > MAX_LABEL_VALUE:
            found.append(
                FieldViolation(
                    f"{field_name}[{key}]", f"values are at most {MAX_LABEL_VALUE} characters"
                )
            )
    return found


def validate_request(
    registry: ToolRegistry,
    text: str,
    tools: Sequence[str],
    context: Mapping[str, Any],
    call: CallContext,
    max_iterations: int = 0,
    request: TaskRequest | None = None,
) -> tuple[dict[str, ToolSpec], int]:
    """The tools the task may use and its iteration limit; InvalidArgumentError listing
    every problem otherwise (task 1-5,000 characters, context at most 10 KB as JSON,
    max_iterations 1-50 or 0 for the default, tool names known and allowed)."""
    violations: list[FieldViolation] = []
    if not text.strip():
        violations.append(FieldViolation("task", "is required"))
    elif len(text) > MAX_TASK_CHARS:
        violations.append(
            FieldViolation(
                "task", f"is {len(text)} characters; at most {MAX_TASK_CHARS} are allowed"
            )
        )
    size = len(json.dumps(dict(context), separators=(",", ":"), default=str).encode())
    if size > MAX_CONTEXT_BYTES:
        violations.append(
            FieldViolation(
                "context", f"is {size} bytes as JSON; at most {MAX_CONTEXT_BYTES} are allowed"
            )
        )
    if max_iterations and not 1 <= max_iterations <= MAX_ITERATIONS_LIMIT:
        violations.append(
            FieldViolation(
                "max_iterations",
                f"must be between 1 and {MAX_ITERATIONS_LIMIT} (0 for the default)",
            )
        )
    if request is not None:
        violations.extend(label_violations(request.labels))
        timeout = request.timeout_seconds
        if timeout < 0 or not math.isfinite(timeout):
            violations.append(FieldViolation("timeout", "must be a positive duration"))
    visible = {spec.name: spec for spec in registry.visible_to(call)}
    chosen: dict[str, ToolSpec] = {}
    for index, name in enumerate(tools):
        if name in visible:
            chosen[name] = visible[name]
        elif (problem := tool_name_problem(name)) is not None:
            violations.append(FieldViolation(f"tools[{index}]", problem))
        else:
            violations.append(
                FieldViolation(f"tools[{index}]", f"no tool named {name!r} is available to you")
            )
    if violations:
        raise InvalidArgumentError(violations)
    return (chosen or visible), (max_iterations or DEFAULT_MAX_ITERATIONS)
