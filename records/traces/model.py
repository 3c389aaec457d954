"""What a task's trace holds: entries (a model call, a tool call, a critic's verdict, a
decision) and the messages model calls sent, each distinct message stored once per task
under its content address (`message_id`) and named by id from every call that sent it, so
a trace grows with the messages, not with the square of the iterations.

Everything here is redacted (as audit records are) and capped before it is kept; a cut
is marked (`cut`). The one exception is `ToolCallTrace.arguments_key`: a keyed hash of the
arguments as they were before redaction (`arguments_key`), which is what a replay matches
a call on, and from which the arguments cannot be read back.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from records.tasks import TokenUsage


class TraceKind(enum.Enum):
    MODEL_CALL = "model_call"
    TOOL_CALL = "tool_call"
    CRITIC = "critic"
    DECISION = "decision"


class ToolSource(enum.Enum):
    """Where a tool call's result came from."""

    LIVE = "live"
    """The tool ran (or the task's children did)."""
    RECORDED = "recorded"
    """A replay answered it from the recorded task's trace."""
    NOT_RUN = "not_run"
    """A replay did not run it: no recording matched, or it writes."""


@dataclass(frozen=True, slots=True)
class TracedToolRequest:
    """A tool call as a model asked for it (its arguments' JSON redacted)."""

    id: str
    name: str
    arguments_json: str


@dataclass(frozen=True, slots=True)
class TracedMessage:
    """One message of a model request, kept once per task."""

    message_id: str
    """Its content address within the task (`message_id`)."""
    role: str
    content: str
    tool_call_id: str = ""
    name: str = ""
    tool_calls: tuple[TracedToolRequest, ...] = ()
    cut: bool = False


@dataclass(frozen=True, slots=True)
class ModelCallTrace:
    role: str
    """The engine's role for the call (main, planner, executor, critic, ...)."""
    provider: str
    model: str
    message_ids: tuple[str, ...]
    """The request's messages in order."""
    tools: tuple[str, ...]
    """The names of the tools offered."""
    parameters: dict[str, Any]
    """temperature, max_tokens and the other settings sent."""
    reply_text: str
    reply_tool_calls: tuple[TracedToolRequest, ...]
    usage: TokenUsage
    latency_seconds: float
    error: str = ""
    """Why the call failed; empty when it answered."""


@dataclass(frozen=True, slots=True)
class ToolCallTrace:
    call_id: str
    tool: str
    arguments: dict[str, Any]
    """Redacted."""
    arguments_key: str
    """The keyed hash of the arguments before redaction (`arguments_key`)."""
    result_text: str
    """What the model was shown."""
    result: Any
    """The tool's structured result (JSON), redacted."""
    error_kind: str = ""
    error: str = ""
    duration_seconds: float = 0.0
    source: ToolSource = ToolSource.LIVE
    child_task_id: str = ""
    """For a delegation or a panel member: the child task that answered."""


@dataclass(frozen=True, slots=True)
class CriticTrace:
    subject: str
    """What was judged: "answer" or a step id."""
    accepted: bool
    feedback: str


@dataclass(frozen=True, slots=True)
class DecisionTrace:
    kind: str
    """guardrail, approval or deadline."""
    call_id: str
    tool: str
    decision: str
    decided_by: str
    reason: str


TraceDetail = ModelCallTrace | ToolCallTrace | CriticTrace | DecisionTrace

_KINDS: dict[type, TraceKind] = {
    ModelCallTrace: TraceKind.MODEL_CALL,
    ToolCallTrace: TraceKind.TOOL_CALL,
    CriticTrace: TraceKind.CRITIC,
    DecisionTrace: TraceKind.DECISION,
}


@dataclass(frozen=True, slots=True)
class TraceEntry:
    """One entry of a task's trace."""

    task_id: str
    entry_id: str
    """Orders the task's entries (`entry_id`): sortable as text, unique per task."""
    step_id: str
    time: datetime
    detail: TraceDetail
    cut: bool = False
    """True when the entry was cut to the record limit."""

    @property
    def kind(self) -> TraceKind:
        return _KINDS[type(self.detail)]


@dataclass(frozen=True, slots=True)
class TraceOwner:
    """Whose task a trace is, kept with it: reads are checked against it, `ForgetUser`
    and the retention sweeper find traces by it."""

    task_id: str
    tenant: str
    user: str
    """The principal the task runs for (its owner, or the end user a gateway named)."""
    root_task_id: str
    parent_task_id: str
    agent: str
    """`id@version`, empty for the default agent."""
    task: str
    """The task's input as it was started."""
    started: datetime


@dataclass(frozen=True, slots=True)
class TraceHead:
    """What is kept of a task's trace, without its entries."""

    owner: TraceOwner
    entries: int
    bytes: int
    cut: bool
    """True once the task's cap was reached: entries after it were not kept."""


@dataclass(frozen=True, slots=True)
class TracePage:
    entries: tuple[TraceEntry, ...]
    messages: tuple[TracedMessage, ...]
    """The messages this page's model calls name that an earlier page did not."""
    next_after: str
    """The entry id to read on after; empty on the last page."""


def entry_id(time_ns: int, n: int) -> str:
    """An entry id that sorts as the entries were made: the time (nanoseconds since the
    epoch) and a counter of the recording process, both zero-padded."""
    return f"{time_ns:020d}-{n:08d}"


def canonical(value: Any) -> str:
    """`value` as canonical JSON (sorted keys, no spaces, UTF-8 text as is)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def message_id(role: str, content: str, tool_call_id: str, name: str, calls: str) -> str:
    """A message's content address: SHA-256 of its parts, each after its length (so no
    two different messages are the same text), hex, 32 digits."""
    parts = (role, content, tool_call_id, name, calls)
    text = "".join(f"{len(part)}:{part}" for part in parts)
    return hashlib.sha256(text.encode(errors="surrogatepass")).hexdigest()[:32]


def arguments_key(key: bytes, tool: str, arguments: Mapping[str, Any]) -> str:
    """The keyed hash (HMAC-SHA256, hex) of a call's tool and canonical arguments, taken
    before redaction: equal calls have equal keys; the key keeps a secret in the
    arguments from being guessed back from it."""
    text = canonical([tool, arguments]).encode(errors="surrogatepass")  # a model's own
    return hmac.new(key, text, hashlib.sha256).hexdigest()
