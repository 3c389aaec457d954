"""Where a replay first did other than the recording it replays: its tool calls compared
in order with the recording's (tool and `arguments_key`), then its answer."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from records.traces.model import ToolCallTrace, canonical
from records.traces.replays import DivergenceKind, ReplayDivergence


@dataclass(frozen=True, slots=True)
class CallShape:
    """A tool call as the comparison sees it."""

    tool: str
    arguments_key: str
    """`records.traces.model.arguments_key` of its arguments before redaction."""
    shown: str
    """`tool {redacted arguments JSON}`: what the report shows of it."""

    @classmethod
    def of(cls, tool: str, key: str, redacted: Mapping[str, Any]) -> CallShape:
        return cls(tool, key, f"{tool} {canonical(dict(redacted))}")

    @classmethod
    def recorded(cls, trace: ToolCallTrace) -> CallShape:
        return cls.of(trace.tool, trace.arguments_key, trace.arguments)

    def same(self, other: CallShape) -> bool:
        return self.tool == other.tool and self.arguments_key == other.arguments_key


def divergence(
    recorded: Sequence[CallShape],
    replayed: Sequence[CallShape],
    recorded_answer: str,
    answer: str,
) -> ReplayDivergence | None:
    """The first place the replay went its own way: a differing (or extra) tool call, a
    call the recording made that the replay did not, or else another answer; None when
    it did as the recording did."""
    for index, (was, now) in enumerate(zip(recorded, replayed, strict=False)):
        if not was.same(now):
            return ReplayDivergence(DivergenceKind.TOOL_CALL, index, was.shown, now.shown)
    if len(replayed) > len(recorded):
        extra = len(recorded)
        return ReplayDivergence(DivergenceKind.TOOL_CALL, extra, "", replayed[extra].shown)
    if len(recorded) > len(replayed):
        missing = len(replayed)
        return ReplayDivergence(DivergenceKind.MISSING_CALL, missing, recorded[missing].shown, "")
    if answer.strip() != recorded_answer.strip():
        return ReplayDivergence(DivergenceKind.ANSWER, 0, recorded_answer, answer)
    return None
