"""Admission: a full process refuses at once; slots go round-robin between tenants; one
tenant cannot take every queue place."""

from __future__ import annotations

import asyncio
import random

import pytest

from agent.scheduling.admission import Admission, Ticket
from core.errors import ResourceExhaustedError


async def _hold(ticket: Ticket, started: list[str], name: str, release: asyncio.Event) -> None:
    async with ticket.slot():
        started.append(name)
        await release.wait()
    ticket.release()


async def test_a_full_process_refuses_with_a_retry_delay() -> None:
    admission = Admission(2, 3, tenant_queue_share=1.0)
    tickets = [admission.admit("acme") for _ in range(5)]
    with pytest.raises(ResourceExhaustedError) as refused:
        admission.admit("acme")
    delay = refused.value.retry_after_seconds
    assert delay is not None
    assert 0.75 <= delay <= 1.25  # nothing has run: the base 1 s, jittered
    tickets[0].release()
    admission.admit("other")  # a released place is free again
    assert admission.held == 5


async def test_free_slots_go_round_robin_between_tenants() -> None:
    admission = Admission(1, 10, tenant_queue_share=1.0)
    started: list[str] = []
    release = {name: asyncio.Event() for name in ("a0", "a1", "a2", "a3", "b0", "b1")}
    jobs = []
    # acme queues four tasks before beta queues two; the slot is busy meanwhile.
    for name in ("a0", "a1", "a2", "a3", "b0", "b1"):
        tenant = "acme" if name.startswith("a") else "beta"
        jobs.append(
            asyncio.create_task(_hold(admission.admit(tenant), started, name, release[name]))
        )
        await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert started == ["a0"]
    for name in ("a0", "a1", "b0", "a2", "b1"):
        release[name].set()
        await asyncio.sleep(0.01)
    release["a3"].set()
    await asyncio.gather(*jobs)
    assert started == ["a0", "a1", "b0", "a2", "b1", "a3"]
    assert admission.held == 0
    assert admission.running == 0


async def test_one_tenant_keeps_to_its_share_of_the_queue_while_every_slot_is_busy() -> None:
    admission = Admission(2, 4, tenant_queue_share=0.5)
    running = [admission.admit("acme"), admission.admit("acme")]
    release = asyncio.Event()
    started: list[str] = []
    jobs = [asyncio.create_task(_hold(t, started, "r", release)) for t in running]
    await asyncio.sleep(0)
    queued = [admission.admit("acme"), admission.admit("acme")]  # half the queue
    with pytest.raises(ResourceExhaustedError, match="share"):
        admission.admit("acme")
    other = admission.admit("beta")  # the rest stays open for others
    release.set()
    await asyncio.gather(*jobs)
    for ticket in (*queued, other):
        ticket.release()
    assert admission.held == 0


async def test_a_waiter_cancelled_in_the_queue_gives_its_turn_away() -> None:
    admission = Admission(1, 2, tenant_queue_share=1.0)
    release = asyncio.Event()
    started: list[str] = []
    first = asyncio.create_task(_hold(admission.admit("a"), started, "first", release))
    await asyncio.sleep(0)
    doomed = asyncio.create_task(_hold(admission.admit("a"), started, "doomed", release))
    last = asyncio.create_task(_hold(admission.admit("b"), started, "last", release))
    await asyncio.sleep(0)
    doomed.cancel()
    release.set()
    await asyncio.gather(first, last)
    assert doomed.cancelled()
    assert started == ["first", "last"]
    assert admission.running == 0


class Fixed(random.Random):
    def uniform(self, a: float, b: float) -> float:
        return a  # the shortest delay the range allows


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _refused(admission: Admission) -> float:
    with pytest.raises(ResourceExhaustedError) as refused:
        admission.admit("acme")
    delay = refused.value.retry_after_seconds
    assert delay is not None
    return delay


async def test_before_any_task_has_finished_callers_ask_again_twice_as_late() -> None:
    clock = Clock()
    admission = Admission(1, 0, rng=Fixed(), clock=clock)
    ticket = admission.admit("acme")
    async with ticket.slot():
        assert _refused(admission) == pytest.approx(0.75)  # the base 1 s, jittered
        clock.now += 4.0  # the task has run 4 s: it may well run as long again
        assert _refused(admission) == pytest.approx(3.0)
    ticket.release()


async def test_refused_callers_are_told_the_moments_their_places_free() -> None:
    clock = Clock()
    admission = Admission(2, 2, tenant_queue_share=1.0, rng=Fixed(), clock=clock)
    first = admission.admit("acme")  # a task that held its slot 4 s: the hold known
    async with first.slot():
        clock.now += 4.0
    first.release()  # clock: 104
    tickets = [admission.admit("acme") for _ in range(4)]  # two run, two wait
    running = [t.slot() for t in tickets[:2]]
    await running[0].__aenter__()
    clock.now += 1.0
    await running[1].__aenter__()  # started 1 s after the other
    clock.now += 1.0
    # The running tasks end 2 s and 3 s from now (4 s after they started): each frees a
    # place, promised to one caller, who comes back just after it (by 2 % of a hold).
    # The callers after them ask again a hold later, when the next ends are known.
    delays = [_refused(admission) for _ in range(4)]
    assert delays == pytest.approx([2.08, 3.08, 4.08, 4.08])
    clock.now += 2.5  # the first task ended; a waiting one took its slot
    await running[0].__aexit__(None, None, None)
    tickets[0].release()
    running[0] = tickets[2].slot()
    await running[0].__aenter__()
    tickets.append(admission.admit("acme"))  # the first caller, back: the place is free
    # The second caller's place stands; the next free one is the end of the task that
    # just started, a hold from now (4.05 s: the first task ran 4.5 s), and 2 % of it.
    assert _refused(admission) == pytest.approx(4.05 + 0.081, abs=1e-3)
    clock.now += 30.0
    for slot in running:
        await slot.__aexit__(None, None, None)
    for ticket in tickets:
        ticket.release()
    assert (admission.held, admission.running) == (0, 0)
    assert not admission._starts  # every slot given back: no task is expected to end


async def test_a_caller_back_before_an_overdue_task_ends_is_not_sent_behind_the_others() -> None:
    clock = Clock()
    admission = Admission(1, 0, rng=Fixed(), clock=clock)
    admission._mean_hold = 4.0
    ticket = admission.admit("acme")
    async with ticket.slot():
        assert _refused(admission) == pytest.approx(4.08)  # its end, just after
        assert _refused(admission) == pytest.approx(4.08)  # the next round's: ask again
        clock.now += 4.1  # the first caller came back; the task runs past its end
        assert _refused(admission) == pytest.approx(0.1 + 0.08)  # 0.1 s late: as long again
        clock.now += 60.0  # waiting for a person, say: about as long again as it is late
        assert _refused(admission) == pytest.approx(30.0)  # at most 30 s
    ticket.release()


async def test_over_its_share_a_tenant_claims_no_place_another_tenant_s_task_will_take() -> None:
    clock = Clock()
    admission = Admission(1, 2, tenant_queue_share=0.5, rng=Fixed(), clock=clock)
    admission._mean_hold = 4.0
    running = admission.admit("acme")
    async with running.slot():
        queued = admission.admit("acme")
        assert _refused(admission) == pytest.approx(4.08)  # acme alone: the slot's end
        other = admission.admit("globex")  # now another tenant waits for the slot too
        assert _refused(admission) == pytest.approx(4.08)  # a hold: nothing promised
        assert len(admission._promised) == 1
    for ticket in (running, queued, other):
        ticket.release()


async def test_a_retry_delay_is_never_zero() -> None:
    admission = Admission(1, 0)
    admission._mean_hold = 0.0001  # tasks that end at once
    ticket = admission.admit("acme")
    async with ticket.slot():
        assert min(_refused(admission) for _ in range(5)) >= 0.05
    ticket.release()


async def test_retry_delays_never_exceed_30_seconds() -> None:
    admission = Admission(1, 0)
    admission._mean_hold = 120.0
    ticket = admission.admit("acme")
    async with ticket.slot():
        delays = [_refused(admission) for _ in range(10)]
    ticket.release()
    assert max(delays) <= 30.0


async def test_a_slot_taken_at_once_is_the_one_held_and_never_jumps_the_queue() -> None:
    admission = Admission(1, 5, tenant_queue_share=1.0)
    first, second, third = (admission.admit("acme") for _ in range(3))
    assert first.take_now()  # free and nobody waits
    assert admission.running == 1
    assert not second.take_now()  # the only slot is taken
    waiting = asyncio.create_task(_hold(second, [], "second", asyncio.Event()))
    await asyncio.sleep(0)
    async with first.slot():  # holds the slot taken, waits for nothing
        assert admission.running == 1
    first.release()
    await asyncio.sleep(0)  # the freed slot went to the waiting ticket
    assert admission.running == 1
    assert not third.take_now()
    waiting.cancel()
    await asyncio.gather(waiting, return_exceptions=True)
    second.release()
    assert third.take_now()
    third.release()  # taken, never held: given back with the ticket
    assert (admission.running, admission.held) == (0, 0)
