"""What a guardrail's decision leaves: an event in a task's log (one of `records.events`)
and an audit record."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
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


@dataclass(frozen=True, slots=True)
class GuardrailRecord:
    """The audit record of one guardrail decision: who, where, which check and rule, what
    was done; never the text it matched (a digest of it, to match records up)."""

    time: datetime
    tenant: str
    principal_id: str
    check: str
    rule: str
    point: str
    action: str
    reason: str
    text_digest: str
    """SHA-256 of the text decided on (hex), never the text."""
    task_id: str = ""
    agent: str = ""
    tool_name: str = ""
    call_id: str = ""
    trace_id: str = ""
