"""Trust across replicas on the machine's Redis and PostgreSQL: an approval decided on
another replica than the one running the task, and the audit log read from PostgreSQL."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from agentd.v1 import events_pb2, tasks_pb2
from tests.integration.harness import assert_well_formed, of_kind
from tests.integration.trust import trusted

pytestmark = [pytest.mark.redis, pytest.mark.postgres]

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
CALL = {"tool_calls": [{"name": "calculator", "arguments": {"expression": "6*7"}}]}


async def test_an_approval_given_on_another_replica_reaches_the_task(
    tmp_path: Path, prefix: str, database: str
) -> None:
    # Each replica reads the grants from PostgreSQL every `grants_refresh_seconds`; the
    # task waiting for approval parks, and the approval may wake it on b.
    shared: dict[str, Any] = {"redis_url": "redis://127.0.0.1:6379/0", "redis_prefix": prefix,
              "database_url": database, "grants_refresh_seconds": 0.1}  # fmt: skip
    async with (
        trusted(tmp_path / "a", [CALL, {"text": "done"}], **shared) as a,
        # One model for both: the approval wakes the task on b, which has room for it.
        trusted(tmp_path / "b", **shared, llm_base_url=a.llm.base_url) as b,
    ):
        alice = await a.client("acme", "alice")
        await a.grant("acme", "principal:alice", "calculator", "read", requires_approval=True)
        await asyncio.sleep(0.5)  # b has read it too
        carol_on_b = await b.client("acme", "carol", "approver")
        dana_on_b = await b.client("acme", "dana", "auditor")

        stream = alice.execute("what is 6*7?", mode=FC)
        events: list[events_pb2.TaskEvent] = []
        async for event in stream:
            events.append(event)
            if event.WhichOneof("payload") == "approval_requested":
                break
        task_id, call_id = events[0].task_id, events[-1].approval_requested.call_id
        waiting = await carol_on_b.get_task(task_id)
        assert waiting.status == tasks_pb2.TASK_STATUS_INPUT_REQUIRED
        await carol_on_b.approve_tool_call(task_id, call_id, "approve", comment="fine")
        events.extend([event async for event in stream])
        assert_well_formed(events)
        assert of_kind(events, "tool_call_finished")[0].text == "42"

        records = await dana_on_b.list_audit_records("tool_call", task_id=task_id)
        (record,) = [r.tool_call for r in records.records]
        assert (record.approval, record.approved_by, record.outcome) == ("approved", "carol", "ok")
        rpcs = await dana_on_b.list_audit_records("rpc", task_id=task_id)
        methods = [r.rpc.method.rsplit("/", 1)[-1] for r in rpcs.records]
        assert sorted(methods) == ["ApproveToolCall", "Execute", "GetTask"]
