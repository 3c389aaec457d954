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
    batch: str = ""
    """The step whose model reply asked for it: calls of one reply run at once, so they
    are compared as a set (in `ordered`), not in the order they happened to finish."""

    @classmethod
    def of(cls, tool: str, key: str, redacted: Mapping[str, Any], batch: str = "") -> CallShape:
        return cls(tool, key, f"{tool} {canonical(dict(redacted))}", batch)

    @classmethod
    def recorded(cls, trace: ToolCallTrace, step_id: str) -> CallShape:
        return cls.of(trace.tool, trace.arguments_key, trace.arguments, step_id)

    def same(self, other: CallShape) -> bool:
        return self.tool == other.tool and self.arguments_key == other.arguments_key


def ordered(calls: Sequence[CallShape]) -> list[CallShape]:
    """`calls` in the order they are compared: batch after batch (runs of one batch), the
    calls of a batch by tool and arguments (they ran at once: the order they finished, as
    a recording keeps them, says nothing of the model)."""
    found: list[CallShape] = []
    run: list[CallShape] = []
    for call in calls:
        if run and (not call.batch or call.batch != run[-1].batch):
            found.extend(sorted(run, key=_canonical))
            run = []
        run.append(call)
    found.extend(sorted(run, key=_canonical))
    return found


def _canonical(call: CallShape) -> tuple[str, str]:
    return call.tool, call.arguments_key


def divergence(
    recorded: Sequence[CallShape],
    replayed: Sequence[CallShape],
    recorded_answer: str,
    answer: str,
) -> ReplayDivergence | None:
    """The first place the replay went its own way (its calls and the recording's taken
    in `ordered` order): a differing (or extra) tool call, a call the recording made that
    the replay did not, or else another answer; None when it did as the recording did."""
    recorded, replayed = ordered(recorded), ordered(replayed)
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
