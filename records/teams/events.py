"""The events of agents working together (`agent.teams`): a parent task's view of its
child tasks and panels. Members of the one event union, `records.events.EventPayload`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from records.tasks import StopReason, TaskStatus, TokenUsage


@dataclass(frozen=True, slots=True)
class SubtaskStarted:
    """A child task was started (a delegation, or a panel member)."""

    child_task_id: str
    agent: str
    task: str
    call_id: str
    panel: str = ""
    type: Literal["subtask_started"] = "subtask_started"


@dataclass(frozen=True, slots=True)
class SubtaskFinished:
    """A child task ended; its usage is now in the parent's."""

    child_task_id: str
    agent: str
    status: TaskStatus
    answer: str
    error: str
    usage: TokenUsage
    stop_reason: StopReason | None = None
    type: Literal["subtask_finished"] = "subtask_finished"


@dataclass(frozen=True, slots=True)
class SubtaskWaiting:
    """A child task waits for a person; answer on the child's id."""

    child_task_id: str
    kind: Literal["approval", "input"]
    request_id: str
    detail: str
    type: Literal["subtask_waiting"] = "subtask_waiting"


@dataclass(frozen=True, slots=True)
class PanelVote:
    panel: str
    agent: str
    child_task_id: str
    answer: str
    ok: bool
    group: int
    type: Literal["panel_vote"] = "panel_vote"


@dataclass(frozen=True, slots=True)
class PanelDecided:
    panel: str
    answer: str
    ratio: float
    threshold: float
    reached: bool
    members: int
    grouping: str
    type: Literal["panel_decided"] = "panel_decided"
