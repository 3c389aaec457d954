"""The approval box contract, in-process and on the machine's Redis."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as redis

from core.errors import ApprovalNotPendingError
from records.tools.approvals import ApprovalDecision
from stores.approvals.base import ApprovalBox
from stores.approvals.memory import InMemoryApprovalBox
from stores.approvals.redis import RedisApprovalBox
from tests.contract.conftest import REDIS_URL, drop_prefix


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
async def box(request: pytest.FixtureRequest) -> AsyncIterator[ApprovalBox]:
    if request.param == "memory":
        yield InMemoryApprovalBox()
        return
    client = redis.Redis.from_url(REDIS_URL)
    prefix = f"agentd-test:{secrets.token_hex(6)}:"
    try:
        yield RedisApprovalBox(client, prefix)
    finally:
        await drop_prefix(client, prefix)
        await client.aclose()


async def test_a_verdict_reaches_the_waiting_task_once(box: ApprovalBox) -> None:
    await box.open("acme", "task-1", "call-1", 60)
    waiting = asyncio.create_task(box.wait("task-1", "call-1"))
    await asyncio.sleep(0.05)
    assert not waiting.done()
    edited = ApprovalDecision(True, "carol", "use the staging host", {"url": "https://staging/"})
    await box.decide("acme", "task-1", "call-1", edited)
    assert await asyncio.wait_for(waiting, 2) == edited
    with pytest.raises(ApprovalNotPendingError):  # a second decision is refused
        await box.decide("acme", "task-1", "call-1", ApprovalDecision(False, "dave"))
    await box.close("task-1", "call-1")
    with pytest.raises(ApprovalNotPendingError):
        await box.decide("acme", "task-1", "call-1", ApprovalDecision(False, "dave"))


async def test_only_the_tasks_tenant_and_open_calls_can_be_decided(box: ApprovalBox) -> None:
    await box.open("acme", "task-1", "call-1", 60)
    with pytest.raises(ApprovalNotPendingError):
        await box.decide("globex", "task-1", "call-1", ApprovalDecision(True, "mallory"))
    with pytest.raises(ApprovalNotPendingError):
        await box.decide("acme", "task-1", "call-2", ApprovalDecision(True, "carol"))
    with pytest.raises(ApprovalNotPendingError):
        await box.decide("acme", "task-2", "call-1", ApprovalDecision(True, "carol"))
    await box.decide("acme", "task-1", "call-1", ApprovalDecision(False, "carol", "no"))
    assert await box.wait("task-1", "call-1") == ApprovalDecision(False, "carol", "no")
