"""When a schedule is due: pure functions of its timing and a time, with the clock passed
in (`Clock`) so tests of daylight-saving changes and catch-up are exact.

Cron expressions are read by `cronsim` in the schedule's IANA zone with Debian cron's
rules for daylight-saving changes: a job whose time falls in the hour skipped in spring
runs right after the gap (02:30 on the day clocks go 02:00 → 03:00 runs at 03:00); a job
whose time falls in the hour repeated in autumn runs once, at its first occurrence.
Jobs with an hour or minute wildcard run in every real hour.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from itertools import chain
from typing import Protocol
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from cronsim import CronSim, CronSimError

from records.schedules.model import CatchUp, Timing, TimingKind

MAX_DUE_TIMES = 1000
"""At most this many due times are looked at in one go (a long outage of a frequent
schedule): the oldest beyond it are neither run nor recorded."""
CRON_LOOK_AHEAD = 400
"""Due times of a cron expression looked at for its smallest gap (`cron_gap`)."""
CRON_LOOK_AHEAD_DAYS = 400
"""And within this many days (a yearly expression has two)."""


class Clock(Protocol):
    """The time now, aware, in UTC."""

    def now(self) -> datetime: ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


@dataclass
class ManualClock:
    """A clock tests move by hand."""

    current: datetime = field(default_factory=lambda: datetime(2026, 1, 1, tzinfo=UTC))

    def now(self) -> datetime:
        return self.current

    def advance(self, seconds: float) -> None:
        self.current += timedelta(seconds=seconds)


def monotonic() -> float:
    return time.monotonic()


def cron_problem(expression: str) -> str | None:
    """Why `expression` is not a cron expression of 5 fields, or 6 with seconds first,
    or None."""
    if len(expression.split()) not in (5, 6):
        return (
            "must have 5 fields (minute hour day-of-month month day-of-week), or 6 with "
            "seconds first"
        )
    try:
        CronSim(expression, datetime(2026, 1, 1, tzinfo=UTC))
    except CronSimError as error:
        return f"is not a cron expression ({error})"
    return None


def zone_problem(name: str) -> str | None:
    """Why `name` is not an IANA time zone, or None."""
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return f"{name!r} is not an IANA time zone"
    return None


def _cron_after(timing: Timing, after: datetime) -> Iterator[datetime]:
    zone = ZoneInfo(timing.time_zone)
    for due in CronSim(timing.expression, after.astimezone(zone)):
        yield due.astimezone(UTC)


def _interval_after(timing: Timing, after: datetime) -> Iterator[datetime]:
    assert timing.start is not None, "an interval schedule counts from its start"
    step = timedelta(seconds=timing.interval_seconds)
    if after < timing.start:
        due = timing.start
    else:
        due = timing.start + step * ((after - timing.start) // step + 1)
    while True:
        yield due
        due += step


def due_after(timing: Timing, after: datetime) -> Iterator[datetime]:
    """The due times strictly after `after`, in order, within start and end."""
    if timing.kind is TimingKind.ONCE:
        source: Iterator[datetime] = iter([timing.at] if timing.at and timing.at > after else [])
    elif timing.kind is TimingKind.CRON:
        early = timing.start - timedelta(microseconds=1) if timing.start else after
        source = _cron_after(timing, max(after, early))
    else:
        source = _interval_after(timing, after)
    for due in source:
        if due <= after or (timing.start and due < timing.start):
            continue
        if timing.end is not None and due > timing.end:
            return
        yield due


def next_due(timing: Timing, after: datetime) -> datetime | None:
    """The first due time strictly after `after`, or None when none is left."""
    return next(due_after(timing, after), None)


def _between(timing: Timing, first: datetime, low: datetime, high: datetime) -> Iterator[datetime]:
    """The due times in (low, high], none before `first` (a due time, included)."""
    source = chain([first], due_after(timing, first)) if low < first else due_after(timing, low)
    for due in source:
        if due > high:
            return
        yield due


def due_through(
    timing: Timing, first: datetime, now: datetime, span: float = 60.0
) -> list[datetime]:
    """`first` (a due time) and the due times after it up to `now`, oldest first, at most
    MAX_DUE_TIMES (the newest kept).

    The walk starts `span` seconds before `now` (the catch-up window and the on-time
    slack, with a margin), not at `first`, and reaches back further, doubling, only while
    fewer than MAX_DUE_TIMES are found: a next due time a year old costs a walk about the
    size of the window (or of MAX_DUE_TIMES), not of the year.
    """
    found: deque[datetime] = deque()
    high, reach = now, max(span, 1.0)
    while len(found) < MAX_DUE_TIMES:
        low = now - timedelta(seconds=reach)
        segment = deque(_between(timing, first, low, high), maxlen=MAX_DUE_TIMES - len(found))
        found.extendleft(reversed(segment))
        if low < first:
            break
        high, reach = low, reach * 2
    return list(found)


def cron_gap(expression: str, time_zone: str, now: datetime) -> float:
    """The smallest gap in seconds between consecutive due times of a (valid) cron
    expression, over its next CRON_LOOK_AHEAD due times within CRON_LOOK_AHEAD_DAYS of
    `now`; infinity when fewer than two fall there."""
    zone = ZoneInfo(time_zone)
    horizon = now + timedelta(days=CRON_LOOK_AHEAD_DAYS)
    smallest, previous = float("inf"), None
    for count, local in enumerate(CronSim(expression, now.astimezone(zone))):
        due = local.astimezone(UTC)
        if count >= CRON_LOOK_AHEAD or due > horizon:
            break
        if previous is not None:
            smallest = min(smallest, (due - previous).total_seconds())
        previous = due
    return smallest


@dataclass(frozen=True, slots=True)
class Selection:
    run: tuple[datetime, ...]
    """The due times to run, oldest first."""
    missed: tuple[datetime, ...]
    """The due times recorded MISSED."""


def select(
    due: list[datetime], now: datetime, policy: CatchUp, window: float, tolerance: float
) -> Selection:
    """Which of the due times `due` (oldest first, all ≤ now) run.

    A due time at most `tolerance` seconds late is on time and always runs (a replica
    that took the schedule over after a lease is on time). Later ones are caught up when
    within `window` seconds of now, as `policy` says: LATEST runs the newest of them
    (unless an on-time one runs), EACH runs each, NONE none. The rest are MISSED.
    """
    on_time = [d for d in due if (now - d).total_seconds() <= tolerance]
    late = [d for d in due if d not in on_time]
    caught = [d for d in late if (now - d).total_seconds() <= window]
    if policy is CatchUp.EACH:
        chosen = caught
    elif policy is CatchUp.LATEST and caught and not on_time:
        chosen = caught[-1:]
    else:
        chosen = []
    run = tuple(chosen + on_time)
    return Selection(run=run, missed=tuple(d for d in late if d not in chosen))
