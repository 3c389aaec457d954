"""An MCP server's call slots, shared between tenants: counted, never timed."""

from __future__ import annotations

import asyncio

import pytest

from tools.mcp.slots import FairSlots


async def _settle() -> None:
    for _ in range(10):  # let every task that can run, run
        await asyncio.sleep(0)


async def test_a_flooding_tenant_leaves_room_for_others() -> None:
    slots = FairSlots(8)
    assert slots.per_key == 6
    release = asyncio.Event()
    order: list[str] = []

    async def call(tenant: str) -> None:
        async with slots.hold(tenant):
            order.append(tenant)
            await release.wait()

    flood = [asyncio.create_task(call("a")) for _ in range(100)]
    await _settle()
    assert order == ["a"] * 6  # its share, not the server
    other = asyncio.create_task(call("b"))
    await _settle()
    assert order[-1] == "b"  # at once, while "a" waits
    release.set()
    await asyncio.gather(*flood, other)
    assert slots.in_use == 0
    assert slots._waiting == {}
    assert slots._held == {}


async def test_freed_slots_go_to_tenants_in_turn() -> None:
    slots = FairSlots(2)
    gates = {n: asyncio.Event() for n in range(4)}
    order: list[str] = []

    async def call(tenant: str, gate: asyncio.Event) -> None:
        async with slots.hold(tenant):
            order.append(tenant)
            await gate.wait()

    first = asyncio.create_task(call("a", gates[0]))
    second = asyncio.create_task(call("c", gates[1]))
    await _settle()
    later = [asyncio.create_task(call("a", asyncio.Event())) for _ in range(3)]
    await _settle()
    turn = asyncio.create_task(call("b", gates[2]))
    await _settle()
    assert order == ["a", "c"]
    gates[0].set()
    await _settle()
    gates[1].set()
    await _settle()
    assert order[2:4] == ["a", "b"]  # "b" waited behind three of "a"'s, not behind all
    for task in [*later, turn]:
        task.cancel()
    await asyncio.gather(first, second, *later, turn, return_exceptions=True)
    assert slots.in_use == 0


async def test_a_waiter_cancelled_leaves_its_place_and_passes_on_a_slot() -> None:
    slots = FairSlots(1)
    held = asyncio.Event()
    got: list[str] = []

    async def holder() -> None:
        async with slots.hold("a"):
            await held.wait()

    async def waiter(name: str) -> None:
        async with slots.hold(name):
            got.append(name)

    first = asyncio.create_task(holder())
    await _settle()
    gone = asyncio.create_task(waiter("b"))
    kept = asyncio.create_task(waiter("c"))
    await _settle()
    gone.cancel()
    held.set()
    await asyncio.gather(first, kept)
    with pytest.raises(asyncio.CancelledError):
        await gone
    assert got == ["c"]
    assert slots.in_use == 0
