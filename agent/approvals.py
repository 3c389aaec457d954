"""Tool calls waiting for a human: where a decision is left and where a task finds it.

A task that needs approval opens a slot for the call, announces it with an
`approval_requested` event, and waits; `ApproveToolCall` (on any replica)
leaves the verdict in the slot. Each slot takes one decision: a second one,
or one for a call that never asked, is refused.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from typing import Any, Protocol

import redis.asyncio as redis

from core.errors import ApprovalNotPendingError
from tools.approvals import Verdict

POLL_SECONDS = 0.2


def verdict_to_json(verdict: Verdict) -> str:
    return json.dumps(
        {
            "approved": verdict.approved,
            "decided_by": verdict.decided_by,
            "comment": verdict.comment,
            "arguments": dict(verdict.arguments) if verdict.arguments is not None else None,
        }
    )


def verdict_from_json(text: str | bytes) -> Verdict:
    data: dict[str, Any] = json.loads(text)
    return Verdict(
        approved=bool(data["approved"]),
        decided_by=str(data["decided_by"]),
        comment=str(data.get("comment", "")),
        arguments=data.get("arguments"),
    )


class ApprovalBox(Protocol):
    async def open(self, tenant: str, task_id: str, call_id: str, ttl_seconds: float) -> None:
        """Accept one decision on this call from now on."""
        ...

    async def decide(self, tenant: str, task_id: str, call_id: str, verdict: Verdict) -> None:
        """Leave the verdict; ApprovalNotPendingError unless the call waits undecided."""
        ...

    async def wait(self, task_id: str, call_id: str) -> Verdict:
        """The verdict, once one was left."""
        ...

    async def close(self, task_id: str, call_id: str) -> None:
        """Forget the call (decided, or the task stopped waiting)."""
        ...


class InMemoryApprovalBox:
    """One process: a future per waiting call."""

    def __init__(self) -> None:
        self._slots: dict[tuple[str, str], tuple[str, asyncio.Future[Verdict]]] = {}

    async def open(self, tenant: str, task_id: str, call_id: str, ttl_seconds: float) -> None:
        future: asyncio.Future[Verdict] = asyncio.get_running_loop().create_future()
        self._slots[(task_id, call_id)] = (tenant, future)

    async def decide(self, tenant: str, task_id: str, call_id: str, verdict: Verdict) -> None:
        slot = self._slots.get((task_id, call_id))
        if slot is None or slot[0] != tenant or slot[1].done():
            raise ApprovalNotPendingError(task_id, call_id)
        slot[1].set_result(verdict)

    async def wait(self, task_id: str, call_id: str) -> Verdict:
        slot = self._slots.get((task_id, call_id))
        if slot is None:
            raise ApprovalNotPendingError(task_id, call_id)
        return await asyncio.shield(slot[1])

    async def close(self, task_id: str, call_id: str) -> None:
        self._slots.pop((task_id, call_id), None)


_DECIDE = """
local found = redis.call('HMGET', KEYS[1], 'tenant', 'verdict', 'token')
if found[1] ~= ARGV[1] then return 0 end
if found[2] then return found[3] == ARGV[3] and 1 or 0 end  -- 1: this call, sent again
redis.call('HSET', KEYS[1], 'verdict', ARGV[2], 'token', ARGV[3])
return 1
"""


class RedisApprovalBox:
    """Shared by replicas: a hash `{prefix}approval:{task}:{call}` holds tenant and verdict.

    The waiting task polls for the verdict every 0.2 s: decisions are made by
    people, and a poll needs no connection held open per waiting call.
    """

    def __init__(self, client: redis.Redis, prefix: str = "agentd:") -> None:
        self._redis = client
        self._prefix = prefix
        self._decide = client.register_script(_DECIDE)

    def _key(self, task_id: str, call_id: str) -> str:
        return f"{self._prefix}approval:{task_id}:{call_id}"

    async def open(self, tenant: str, task_id: str, call_id: str, ttl_seconds: float) -> None:
        key = self._key(task_id, call_id)
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.hset(key, "tenant", tenant)
            pipe.expire(key, max(1, int(ttl_seconds)))
            await pipe.execute()

    async def decide(self, tenant: str, task_id: str, call_id: str, verdict: Verdict) -> None:
        token = secrets.token_hex(8)  # recognises this call if the client sends it again
        done = await self._decide(
            keys=[self._key(task_id, call_id)], args=[tenant, verdict_to_json(verdict), token]
        )
        if not done:
            raise ApprovalNotPendingError(task_id, call_id)

    async def wait(self, task_id: str, call_id: str) -> Verdict:
        key = self._key(task_id, call_id)
        while True:
            found = await self._redis.hmget(key, ["tenant", "verdict"])
            if found[0] is None:
                raise ApprovalNotPendingError(task_id, call_id)
            if found[1] is not None:
                return verdict_from_json(found[1])
            await asyncio.sleep(POLL_SECONDS)

    async def close(self, task_id: str, call_id: str) -> None:
        await self._redis.delete(self._key(task_id, call_id))
