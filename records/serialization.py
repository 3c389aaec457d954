"""JSON forms of tasks and events, for stores that keep them outside the process.

Only the types registered here are ever rebuilt from JSON, so stored data
cannot make the reader construct anything else. Plain dicts that happen to
use a reserved key are wrapped, so user data round-trips unchanged.
"""

from __future__ import annotations

import dataclasses
import enum
import json
from datetime import datetime
from typing import Any

from core.identity import Principal
from records import events as ev
from records.agents.definition import AgentDefinition, Panel, RemoteDelegate
from records.checkpoints import JournalEntry, RunCheckpoint, TakenSteer
from records.conversations.history import History
from records.execution import ExecutionMode
from records.messages import Message, ToolCall
from records.mode_state import (
    FunctionCallingState,
    PlanExecuteState,
    RemoteState,
    StepResult,
    TextReactState,
)
from records.parts import ImagePart, InlineImage, InputPart, TextPart
from records.plan import Plan, PlanStep
from records.tasks import (
    ChildSummary,
    Citation,
    Delegate,
    StopReason,
    Task,
    TaskFailure,
    TaskStatus,
    TokenUsage,
)
from records.tools.outcomes import ToolCallError, ToolErrorKind
from records.traces.replays import DivergenceKind, ReplayDivergence, ReplayInfo, ReplayTools

_DATACLASSES: dict[str, type[Any]] = {
    cls.__name__: cls
    for cls in (
        Task,
        Plan,
        PlanStep,
        TokenUsage,
        TaskFailure,
        ToolCallError,
        ev.TaskEvent,
        ev.StatusChanged,
        ev.PlanCreated,
        ev.PlanRevised,
        ev.StepStarted,
        ev.StepFinished,
        ev.TextDelta,
        ev.ReasoningDelta,
        ev.ToolCallStarted,
        ev.ToolCallFinished,
        ev.ToolProgress,
        ev.ToolCallResumable,
        ev.ReflectionVerdict,
        ev.ApprovalRequested,
        ev.ApprovalDecided,
        ev.DeadlinePassed,
        ev.UsageReported,
        ev.InputRequested,
        ev.InputProvided,
        ev.TaskSteered,
        ev.SteerApplied,
        ev.GuardrailDecided,
        ev.HistoryCompacted,
        ev.ArtifactRef,
        ev.ArtifactUpdated,
        ev.FinalAnswer,
        ev.ErrorOccurred,
        ev.TaskResumed,
        Message,
        ToolCall,
        Principal,
        ev.ContextFitted,
        ev.RouteChosen,
        ev.StreamDiscarded,
        JournalEntry,
        RunCheckpoint,
        FunctionCallingState,
        TextReactState,
        PlanExecuteState,
        StepResult,
        AgentDefinition,
        History,
        ChildSummary,
        Delegate,
        Panel,
        Citation,
        ev.SubtaskStarted,
        ev.SubtaskFinished,
        ev.SubtaskWaiting,
        ev.PanelVote,
        ev.PanelDecided,
        RemoteDelegate,
        RemoteState,
        TakenSteer,
        ReplayInfo,
        ReplayDivergence,
        TextPart,
        ImagePart,
        InputPart,
    )
}
_ENUMS: dict[str, type[enum.Enum]] = {
    cls.__name__: cls
    for cls in (
        TaskStatus,
        StopReason,
        ExecutionMode,
        ToolErrorKind,
        ReplayTools,
        DivergenceKind,
    )
}
_RESERVED = {"__t", "__e", "__dt", "__tuple", "__d"}
_STORED_AS: dict[str, dict[str, str]] = {"Task": {"goal": "task"}}
"""Fields kept under the name they were first stored by (field -> key), so that what one
version writes every other version reads: a rolling upgrade shares Redis and checkpoints
between replicas of both."""


_LATER: dict[str, frozenset[str]] = {
    "Task": frozenset({"wait_limit_seconds", "replay", "input_parts", "spend_limit"}),
    # A stored part is a reference: its bytes (empty) are never written.
    "InputPart": frozenset({"data"}),
    "ChildSummary": frozenset({"budget", "spend"}),
    "PlanExecuteState": frozenset({"unsettled", "correcting", "correction"}),
    "RunCheckpoint": frozenset({"citations", "artifacts_written", "steers"}),
    "JournalEntry": frozenset({"handed_on"}),
    "TokenUsage": frozenset({"cached_prompt_tokens", "cost_micros"}),
    "AgentDefinition": frozenset({"guardrails"}),
    "ApprovalRequested": frozenset({"approver_roles", "deadline"}),
    "Message": frozenset({"parts"}),
    "ContextFitted": frozenset({"dropped_images"}),
}
"""Fields added after their type's stored form was fixed: written only when they differ
from their default, so that a record that does not use them is stored byte for byte as
the version before wrote it (and an older replica, which ignores keys it does not know,
reads what it knows of one that does)."""

_PLAIN = (str, int, float, bool, type(None))
_UNSET = object()
_FIELDS: dict[type[Any], tuple[tuple[str, str], ...]] = {
    cls: tuple(
        (f.name, _STORED_AS.get(cls.__name__, {}).get(f.name, f.name))
        for f in dataclasses.fields(cls)
    )
    for cls in _DATACLASSES.values()
}
"""Each record type's fields, with the key each is stored under."""
_DEFAULTS: dict[type[Any], dict[str, Any]] = {
    cls: {
        f.name: f.default
        for f in dataclasses.fields(cls)
        if f.name in _LATER.get(cls.__name__, ()) and f.default is not dataclasses.MISSING
    }
    for cls in _DATACLASSES.values()
}
"""The defaults of the fields in `_LATER`, by type."""
_KEYS: dict[str, dict[str, str]] = {
    cls.__name__: {key: name for name, key in fields} for cls, fields in _FIELDS.items()
}
"""Each record type's stored keys -> its fields."""


def _encode(value: Any) -> Any:
    if isinstance(value, _PLAIN):  # the common case first: most leaves are plain
        return value
    names = _FIELDS.get(type(value))
    if names is not None:
        later = _DEFAULTS[type(value)]
        out = {
            key: _encode(field)
            for name, key in names
            if (field := getattr(value, name)) != later.get(name, _UNSET)
        }
        out["__t"] = type(value).__name__
        return out
    if isinstance(value, InlineImage):  # an image's bytes go to a model, never to a store
        raise TypeError("cannot store an InlineImage: keep its ImagePart (artifact reference)")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        raise TypeError(f"cannot store {type(value).__name__}")
    if isinstance(value, enum.Enum):
        return {"__e": type(value).__name__, "v": value.value}
    if isinstance(value, datetime):
        return {"__dt": value.isoformat()}
    if isinstance(value, tuple):
        return {"__tuple": [_encode(v) for v in value]}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        encoded = {str(k): _encode(v) for k, v in value.items()}
        return {"__d": encoded} if _RESERVED & encoded.keys() else encoded
    return value


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "__d" in value and len(value) == 1:
        return {k: _decode(v) for k, v in value["__d"].items()}
    if "__tuple" in value:
        return tuple(_decode(v) for v in value["__tuple"])
    if "__dt" in value:
        return datetime.fromisoformat(value["__dt"])
    if "__e" in value:
        return _ENUMS[value["__e"]](value["v"])
    if "__t" in value:
        cls = _DATACLASSES[value["__t"]]
        keys = _KEYS[value["__t"]]
        return cls(**{keys[k]: _decode(v) for k, v in value.items() if k in keys})
    return {k: _decode(v) for k, v in value.items()}


def dumps(value: Any) -> str:
    return json.dumps(_encode(value), separators=(",", ":"), ensure_ascii=False)


def loads(text: str | bytes) -> Any:
    return _decode(json.loads(text))
