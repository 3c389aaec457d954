"""Admission: a full process refuses at once; slots go round-robin between tenants; one
tenant cannot take every queue place."""

from __future__ import annotations

import asyncio
import random

import pytest

from agent.admission import Admission, Ticket
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
    assert 0.25 <= delay <= 0.75  # the base 1 s per task over 2 slots, jittered
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
        return b  # the longest delay the range allows


async def test_retry_delays_are_paced_to_the_rate_places_free_up() -> None:
    admission = Admission(2, 10, tenant_queue_share=1.0, rng=Fixed())
    # Nothing measured yet: the base delay (1 s) stands for a task's time in its slot.
    assert admission.retry_after() == pytest.approx(0.75, abs=0.01)
    admission._promised = 0.0
    for _ in range(30):  # tasks that each held their slot for a second
        ticket = admission.admit("acme")
        await admission._acquire("acme")
        admission._release_slot("acme", held=1.0)
        ticket.release()
    # Two slots held a second each: a place frees every 0.5 s. Callers refused together
    # are told consecutive moments (Fixed jitter: 1.5 x 0.5 s apart), never the same one.
    tickets = [admission.admit("acme") for _ in range(12)]
    delays = []
    for _ in range(4):
        with pytest.raises(ResourceExhaustedError) as refused:
            admission.admit("acme")
        delay = refused.value.retry_after_seconds
        assert delay is not None
        delays.append(delay)
    assert delays == pytest.approx([0.75, 1.5, 2.25, 3.0], abs=0.02)
    jittered = Admission(2, 10, tenant_queue_share=1.0)
    jittered._mean_hold = 1.0
    paced = [jittered.retry_after() for _ in range(40)]
    assert paced == sorted(paced)  # each later than the one before
    assert 16.0 <= paced[-1] <= 24.0  # 40 places, about 0.5 s apart on average
    assert max(jittered.retry_after() for _ in range(200)) <= 30.0  # never beyond 30 s
    for ticket in tickets:
        ticket.release()


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
