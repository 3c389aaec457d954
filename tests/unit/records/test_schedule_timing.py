"""When schedules are due: cron in an IANA zone across both daylight-saving changes
(Debian cron's rules, as docs/schedules.md quotes them), intervals, one instant, start and
end, and which missed due times the catch-up rule runs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import pairwise, takewhile

import pytest
from cronsim import CronSim

import records.schedules.timing as timing_module
from records.schedules.model import CatchUp, Timing, TimingKind
from records.schedules.timing import (
    MAX_DUE_TIMES,
    ManualClock,
    cron_gap,
    cron_problem,
    due_after,
    due_through,
    next_due,
    select,
    zone_problem,
)

BERLIN_0230 = Timing(TimingKind.CRON, expression="30 2 * * *", time_zone="Europe/Berlin")


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


def test_0230_berlin_across_the_spring_gap_runs_at_0300_that_day() -> None:
    due = due_through(BERLIN_0230, utc(2026, 3, 28, 1, 30), utc(2026, 3, 30, 23, 0))
    assert due == [
        utc(2026, 3, 28, 1, 30),  # 02:30 CET
        utc(2026, 3, 29, 1, 0),  # 02:30 does not exist: 03:00 CEST, right after the gap
        utc(2026, 3, 30, 0, 30),  # 02:30 CEST
    ]


def test_0230_berlin_across_the_autumn_repeat_runs_once_at_its_first_occurrence() -> None:
    due = due_through(BERLIN_0230, utc(2026, 10, 24, 0, 30), utc(2026, 10, 26, 23, 0))
    assert due == [
        utc(2026, 10, 24, 0, 30),  # 02:30 CEST
        utc(2026, 10, 25, 0, 30),  # 02:30 CEST, the first of the two; not again at CET
        utc(2026, 10, 26, 1, 30),  # 02:30 CET
    ]


def test_interval_counts_from_its_start_and_stops_at_its_end() -> None:
    start = utc(2026, 1, 1)
    timing = Timing(
        TimingKind.INTERVAL, interval_seconds=60, start=start, end=start + timedelta(minutes=3)
    )
    assert next_due(timing, start - timedelta(hours=1)) == start
    assert next_due(timing, start + timedelta(seconds=61)) == start + timedelta(minutes=2)
    assert due_through(timing, start, start + timedelta(hours=1)) == [
        start + timedelta(minutes=m) for m in range(4)
    ]


def test_one_instant_is_due_once() -> None:
    at = utc(2026, 5, 1, 12)
    timing = Timing(TimingKind.ONCE, at=at)
    assert next_due(timing, at - timedelta(seconds=1)) == at
    assert next_due(timing, at) is None


def test_cron_respects_its_start() -> None:
    timing = Timing(TimingKind.CRON, expression="0 * * * *", start=utc(2026, 1, 1, 5))
    assert next_due(timing, utc(2026, 1, 1)) == utc(2026, 1, 1, 5)


def test_bad_cron_and_zone_are_named() -> None:
    assert cron_problem("30 2 * * *") is None
    assert cron_problem("61 2 * * *") is not None
    assert cron_problem("0 30 2 * * *") is None  # seconds first
    assert cron_problem("0 0 30 2 * * *") is not None
    seconds = Timing(TimingKind.CRON, expression="*/20 * * * * *")
    assert next_due(seconds, utc(2026, 1, 1)) == utc(2026, 1, 1) + timedelta(seconds=20)
    assert zone_problem("Europe/Berlin") is None
    assert zone_problem("Mars/Olympus") is not None


NOW = utc(2026, 1, 1, 12)
DUE = [NOW - timedelta(minutes=m) for m in (50, 30, 10)] + [NOW - timedelta(seconds=5)]


def test_on_time_due_times_run_whatever_the_policy() -> None:
    for policy in CatchUp:
        chosen = select(DUE[-1:], NOW, policy, window=0, tolerance=20)
        assert chosen.run == (DUE[-1],)
        assert chosen.missed == ()


def test_catch_up_latest_runs_the_newest_late_one_only_without_an_on_time_one() -> None:
    late = DUE[:3]
    chosen = select(late, NOW, CatchUp.LATEST, window=40 * 60, tolerance=20)
    assert chosen.run == (DUE[2],)
    assert chosen.missed == (DUE[0], DUE[1])
    with_on_time = select(DUE, NOW, CatchUp.LATEST, window=40 * 60, tolerance=20)
    assert with_on_time.run == (DUE[3],)
    assert with_on_time.missed == tuple(DUE[:3])


def test_catch_up_each_runs_each_within_the_window() -> None:
    chosen = select(DUE, NOW, CatchUp.EACH, window=40 * 60, tolerance=20)
    assert chosen.run == (DUE[1], DUE[2], DUE[3])
    assert chosen.missed == (DUE[0],)  # 50 minutes late: outside the window


def test_catch_up_none_runs_no_late_one() -> None:
    chosen = select(DUE, NOW, CatchUp.NONE, window=40 * 60, tolerance=20)
    assert chosen.run == (DUE[3],)
    assert chosen.missed == tuple(DUE[:3])


def test_manual_clock_moves_by_hand() -> None:
    clock = ManualClock(NOW)
    clock.advance(1.5)
    assert clock.now() == NOW + timedelta(seconds=1.5)


class _Counted(CronSim):
    """CronSim that counts the due times it yields and refuses to walk past a bound."""

    steps = 0
    bound = 20_000

    def __next__(self) -> datetime:
        _Counted.steps += 1
        assert _Counted.steps <= _Counted.bound, "the walk is not bounded by the window"
        return super().__next__()


def test_a_year_old_next_due_resolves_with_a_walk_bounded_by_the_window(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(timing_module, "CronSim", _Counted)
    _Counted.steps = 0
    minutely = Timing(TimingKind.CRON, expression="* * * * *")
    now = utc(2027, 1, 1)
    due = due_through(minutely, utc(2026, 1, 1), now, span=3600)
    assert len(due) == MAX_DUE_TIMES  # the newest kept, as before
    assert due[-1] == now
    assert due[0] == now - timedelta(minutes=MAX_DUE_TIMES - 1)
    assert _Counted.steps < 5 * MAX_DUE_TIMES  # not the year's 525,600


def test_the_bounded_walk_finds_what_the_whole_walk_finds() -> None:
    daily = Timing(TimingKind.CRON, expression="30 2 * * *", time_zone="Europe/Berlin")
    first, now = utc(2026, 3, 1, 1, 30), utc(2026, 11, 1)
    whole = [first, *takewhile(lambda d: d <= now, due_after(daily, first))]
    assert due_through(daily, first, now, span=60) == whole
    start = utc(2026, 1, 1)
    every = Timing(TimingKind.INTERVAL, interval_seconds=7, start=start)
    due = due_through(every, start, start + timedelta(days=30), span=60)
    assert len(due) == MAX_DUE_TIMES
    assert due[-1] == start + timedelta(seconds=7 * (30 * 86_400 // 7))
    assert [b - a for a, b in pairwise(due)] == [timedelta(seconds=7)] * (MAX_DUE_TIMES - 1)


def test_a_cron_more_often_than_the_minimum_is_named() -> None:
    now = utc(2026, 1, 1)
    assert cron_gap("* * * * * *", "UTC", now) == 1
    assert cron_gap("*/30 * * * * *", "UTC", now) == 30
    assert cron_gap("0 * * * * *", "UTC", now) == 60
    assert cron_gap("* * * * *", "Europe/Berlin", now) == 60
    assert cron_gap("0,5 7 * * 1-5", "UTC", now) == 5 * 60
    assert cron_gap("0 0 1 1 *", "UTC", now) >= 365 * 86_400
