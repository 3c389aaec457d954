"""Approval slots shared by replicas, in Redis hashes."""

from __future__ import annotations

import asyncio
import json
import secrets
from typing import Any

import redis.asyncio as redis

from core.errors import ApprovalNotPendingError
from records.tools.approvals import ApprovalDecision
from stores.approvals.base import POLL_SECONDS


def decision_to_json(decision: ApprovalDecision) -> str:
    return json.dumps(
        {
            "approved": decision.approved,
            "decided_by": decision.decided_by,
            "comment": decision.comment,
            "arguments": dict(decision.arguments) if decision.arguments is not None else None,
        }
    )


def decision_from_json(text: str | bytes) -> ApprovalDecision:
    data: dict[str, Any] = json.loads(text)
    return ApprovalDecision(
        approved=bool(data["approved"]),
        decided_by=str(data["decided_by"]),
        comment=str(data.get("comment", "")),
        arguments=data.get("arguments"),
    )


_DECIDE = """
local found = redis.call('HMGET', KEYS[1], 'tenant', 'verdict', 'token')
if found[1] ~= ARGV[1] then return 0 end
if found[2] then return found[3] == ARGV[3] and 1 or 0 end  -- 1: this call, sent again
redis.call('HSET', KEYS[1], 'verdict', ARGV[2], 'token', ARGV[3])
return 1
"""


class RedisApprovalBox:
    """Shared by replicas: a hash `{prefix}approval:{task}:{call}` holds tenant and
    decision (its `verdict` field).

    The waiting task polls for the decision every 0.2 s: decisions are made by
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

    async def decide(
        self, tenant: str, task_id: str, call_id: str, decision: ApprovalDecision
    ) -> None:
        token = secrets.token_hex(8)  # recognises this call if the client sends it again
        done = await self._decide(
            keys=[self._key(task_id, call_id)], args=[tenant, decision_to_json(decision), token]
        )
        if not done:
            raise ApprovalNotPendingError(task_id, call_id)

    async def wait(self, task_id: str, call_id: str) -> ApprovalDecision:
        key = self._key(task_id, call_id)
        while True:
            found = await self._redis.hmget(key, ["tenant", "verdict"])
            if found[0] is None:
                raise ApprovalNotPendingError(task_id, call_id)
            if found[1] is not None:
                return decision_from_json(found[1])
            await asyncio.sleep(POLL_SECONDS)

    async def close(self, task_id: str, call_id: str) -> None:
        await self._redis.delete(self._key(task_id, call_id))
