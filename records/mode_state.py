"""What each mode checkpoints: one small frozen type per mode.

A mode hands its state to `TaskRun.checkpoint` after every completed step and
gets it back from `TaskRun.resume_state` when another process resumes the
task. The types are registered with `records.serialization`, so a checkpoint
can only ever rebuild these. Checkpoints written before these types existed
held a plain dict; `from_legacy` reads those, so a task survives an upgrade
in the middle of its run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from records.messages import Message, ToolCall
from records.plan import Plan, PlanStep


@dataclass(frozen=True, slots=True)
class FunctionCallingState:
    messages: tuple[Message, ...]
    iteration: int
    """The next iteration to run."""
    used_tools: bool
    recent: tuple[str, ...]
    """The latest calls (name and arguments), to notice the same call repeated."""
    pending: tuple[ToolCall, ...] = ()
    """Calls the model asked for before the checkpoint, not yet known to have run."""


@dataclass(frozen=True, slots=True)
class TextReactState:
    messages: tuple[Message, ...]
    iteration: int
    tool: str = ""
    """The pending action's tool ("" when none is pending)."""
    arguments: dict[str, Any] | None = None
    problem: str = ""
    """Why the pending action's arguments are unusable ("" when they are fine)."""
    recent: tuple[str, ...] = ()
    """The latest actions (tool and arguments), to notice the same one repeated."""


@dataclass(frozen=True, slots=True)
class StepResult:
    step: PlanStep
    success: bool
    output: str


@dataclass(frozen=True, slots=True)
class PlanExecuteState:
    plan: Plan | None
    results: tuple[StepResult, ...]
    iterations: int
    corrections: int
    since_review: tuple[str, ...]
    index: int
    replan_reason: str
    """Set between deciding to replan and the new plan, so a resumed run replans too."""
    skipped: tuple[str, ...] = ()
    """Steps given up on under the `skip` step policy (failed, or depending on one that did)."""
    unsettled: tuple[str, ...] = ()
    """Steps that failed beside a step whose call parked the task: their failure is acted
    on (by the step policy) with the batch's, once the woken run finishes it."""
    correcting: str = ""
    """The step a critic's correction runs again, while that correction parked the task."""
    correction: str = ""
    """The critic's feedback for the step in `correcting`."""


@dataclass(frozen=True, slots=True)
class RemoteState:
    """A child task run on a remote A2A agent, parked: the remote task it follows."""

    task_id: str
    """The remote task's id."""
    asked: int = 0
    """Questions (or approvals) of the remote task answered through agentd so far."""
    phase: int = 0
    """Working phases of the remote task the child saw end so far: each phase it parks
    through has a wait of its own (`remote:<task id>:<phase>`)."""


ModeState = FunctionCallingState | TextReactState | PlanExecuteState | RemoteState


def from_legacy(saved: Mapping[str, Any]) -> ModeState | None:
    """The state a dict-shaped checkpoint of an earlier version holds, or None."""
    if "used_tools" in saved:
        return FunctionCallingState(
            tuple(saved["messages"]),
            saved["iteration"],
            saved["used_tools"],
            tuple(saved["recent"]),
            tuple(saved["pending"]),
        )
    if "tool" in saved:
        return TextReactState(
            tuple(saved["messages"]),
            saved["iteration"],
            saved["tool"],
            saved["arguments"],
            saved["problem"],
        )
    if "plan" in saved:
        return PlanExecuteState(
            saved["plan"],
            tuple(StepResult(r["step"], r["success"], r["output"]) for r in saved["results"]),
            saved["iterations"],
            saved["corrections"],
            tuple(saved["since_review"]),
            saved["index"],
            saved["replan_reason"],
        )
    return None
