"""The event a guardrail's decision leaves in a task's log (one of `records.events`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True, slots=True)
class GuardrailDecided:
    """A guardrail blocked, redacted or recorded what went in or came out; it names the
    check and the rule, never the text (`agent.guardrails`)."""

    check: str
    rule: str
    point: str
    """input, output, tool_arguments or tool_result."""
    action: str
    """block, redact or record."""
    reason: str
    tool_name: str = ""
    call_id: str = ""
    matches: int = 0
    type: Literal["guardrail_decided"] = "guardrail_decided"
