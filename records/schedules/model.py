"""A schedule and the runs of its due times, as the stores keep them.

A schedule is one of three timings (a cron expression in an IANA time zone, an interval,
or one instant: `records.schedules.timing`), the task each run starts, and the rules for
overlap and catch-up. A run is one due time of one schedule; `(schedule_id, due_at)` is
unique, which is what makes a due time start one task across any number of replicas.
"""

from __future__ import annotations

import enum
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from core.identity import Principal
from records.conversations.model import BusyPolicy


def new_etag() -> str:
    """A fresh etag or revision (`Schedule.etag`, `Schedule.revision`)."""
    return secrets.token_hex(8)


class Overlap(enum.Enum):
    """What a due time does while the schedule's previous task still runs."""

    SKIP = "skip"
    """The run is recorded SKIPPED; nothing starts."""
    QUEUE_ONE = "queue_one"
    """The run waits (QUEUED) and starts when the previous task ends; while one waits,
    further due times are SKIPPED."""
    CANCEL_PREVIOUS = "cancel_previous"
    """The previous task is cancelled and the run starts."""


class CatchUp(enum.Enum):
    """Which of several due times missed within the catch-up window run."""

    LATEST = "latest"
    """Only the newest; the others are recorded MISSED."""
    EACH = "each"
    """Each, oldest first."""
    NONE = "none"
    """None that is later than the on-time tolerance; all recorded MISSED."""


class ScheduleState(enum.Enum):
    ACTIVE = "active"
    PAUSED = "paused"
    ENDED = "ended"
    """No due time is left (past its end, or a one-time schedule that ran)."""


class RunState(enum.Enum):
    PENDING = "pending"
    """Claimed by a replica, its task not yet started (a replica that dies here leaves
    it to the replica that takes the schedule over: the task id is deterministic)."""
    STARTED = "started"
    QUEUED = "queued"
    SKIPPED = "skipped"
    MISSED = "missed"
    REFUSED = "refused"
    FAILED = "failed"


class TimingKind(enum.Enum):
    CRON = "cron"
    INTERVAL = "interval"
    ONCE = "once"


@dataclass(frozen=True, slots=True)
class Timing:
    """When a schedule is due."""

    kind: TimingKind
    expression: str = ""
    """The cron expression (5 fields, Debian cron's syntax), for CRON."""
    time_zone: str = "UTC"
    """The IANA zone the cron expression is read in."""
    interval_seconds: float = 0.0
    """For INTERVAL: due at start + k × interval."""
    at: datetime | None = None
    """For ONCE: the one due time."""
    start: datetime | None = None
    """No due time before this (an interval counts from it)."""
    end: datetime | None = None
    """No due time after this."""


@dataclass(frozen=True, slots=True)
class TaskTemplate:
    """The task each run starts."""

    agent: str
    goal: str
    context: Mapping[str, Any] = field(default_factory=dict)
    token_budget: int = 0
    spend_limit: int = 0
    """What each run may spend on model calls, in micro-units of the server's currency
    (its task's `spend_limit`); 0: no limit of its own."""
    timeout_seconds: float = 0.0
    conversation_id: str = ""
    busy_policy: BusyPolicy = BusyPolicy.REJECT
    labels: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ScheduleRun:
    """One due time of a schedule, and what became of it."""

    schedule_id: str
    tenant: str
    due_at: datetime
    state: RunState
    task_id: str = ""
    reason: str = ""
    """Why the run was refused, skipped, missed or failed."""
    request_id: str = ""
    """For a run started by TriggerSchedule: the caller's request id."""
    created_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Schedule:
    schedule_id: str
    tenant: str
    timing: Timing
    task: TaskTemplate
    principal: Principal
    """Who the schedule runs as; re-resolved at each run (`standing`)."""
    display_name: str = ""
    overlap: Overlap = Overlap.SKIP
    catch_up: CatchUp = CatchUp.LATEST
    catch_up_window_seconds: float = 0.0
    state: ScheduleState = ScheduleState.ACTIVE
    pause_reason: str = ""
    etag: str = ""
    """The user's version: changes only when a user's field does (an update, a pause, a
    resume); what UpdateSchedule, PauseSchedule and DeleteSchedule compare with."""
    revision: str = ""
    """Changes on every write (the firing loop's and a trigger's bookkeeping too): what
    each write compares and sets on, so none puts back what another wrote."""
    next_due: datetime | None = None
    """The next due time not yet handled; None once none is left."""
    wake_at: datetime | None = None
    """When a replica should next look at it: `next_due`, or sooner while a run is
    queued behind a running task."""
    queued_due: datetime | None = None
    """The due time of the one QUEUED run, if any (QUEUE_ONE)."""
    last_run: ScheduleRun | None = None
    current_task_id: str = ""
    """The task of the newest started run: the one a new run may overlap with."""
    refusals: int = 0
    """Refused runs in a row."""
    labels: Mapping[str, str] = field(default_factory=dict)
    created_at: datetime | None = None
    updated_at: datetime | None = None
