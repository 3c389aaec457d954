"""Deadlines per rule across two `agentd serve` processes on Redis and PostgreSQL,
authentication on. Four grants with approval rules, made through CreateGrant: alice's
calls are decided by `finance`, bob's by `ops` (neither an approver role of the role
table), carol's by `finance` within 2 s or denied, dave's by `finance` within 4 s, then
escalated to `ops` for two minutes.

50 tasks (25 of alice's, 25 of bob's, on both replicas) wait: ListPendingActions, on
either replica and page by page, lists to each role exactly its own; one is decided by
its role and not by the other. Carol's call ends as timed out, named so in the task's
events (`deadline_passed` "denied", no `approval_decided`), in the audit (approval
"timed out: denied" by "deadline") and in the inbox's history (timed out by the deadline,
"denied"). Dave's moves to the `ops` inbox with a new deadline (`deadline_passed`
"escalated"): `finance` no longer lists it nor may decide it; `ops` does; the inbox's
history tells it opened, reminded, escalated and approved by otto."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, timedelta
from pathlib import Path
from typing import Any

import pytest

from agent.llm.fakes.server import FakeOpenAIServer
from agentd.v1 import events_pb2, inbox_pb2, tasks_pb2, tools_pb2
from agentd_client import errors as client_errors
from agentd_client.client import AgentClient
from records.keys import new_key
from stores.api_keys.sql import SqlKeyStore
from stores.sql.database import Database
from stores.sql.engine import migrate
from tests.contract.conftest import REDIS_URL
from tests.helpers import ServerProcess, llm_env, server_process

pytestmark = [pytest.mark.redis, pytest.mark.postgres]
FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
INPUT = tasks_pb2.TASK_STATUS_INPUT_REQUIRED
DONE = tasks_pb2.TASK_STATUS_COMPLETED
REPLIES: list[dict[str, Any]] = [
    {"match": "1764", "text": "done", "repeat": -1},  # an approved call's result
    {"match": "before its deadline", "text": "timed out", "repeat": -1},  # a timeout's
    {"match": "calc job", "repeat": -1,
     "tool_calls": [{"name": "calculator", "arguments": {"expression": "42*42"}}]},
]  # fmt: skip
KEYS = {  # name: (principal, roles)
    "root": ("root", ("admin",)),
    "fay": ("fay", ("finance",)),
    "otto": ("otto", ("ops",)),
    "audrey": ("audrey", ("auditor",)),
    **{owner: (owner, ()) for owner in ("alice", "bob", "carol", "dave")},
}
TASKS = 50


def rule(roles: list[str], **fields: Any) -> inbox_pb2.ApprovalRule:
    """A rule with these roles, as the server shows it (what its deadline does said);
    durations in seconds."""
    fields.setdefault("on_deadline", inbox_pb2.DEADLINE_ACTION_DENY)
    timing = {name: fields.pop(name) for name in DURATIONS if name in fields}
    message = inbox_pb2.ApprovalRule(approver_roles=roles, **fields)
    for name, seconds in timing.items():
        getattr(message, name).FromTimedelta(timedelta(seconds=seconds))
    return message


DURATIONS = ("deadline", "escalation_deadline", "remind_before")
RULES = {
    "alice": rule(["finance"]),
    "bob": rule(["ops"]),
    "carol": rule(["finance"], deadline=2, on_deadline=inbox_pb2.DEADLINE_ACTION_DENY),
    "dave": rule(
        ["finance"],
        deadline=4,
        on_deadline=inbox_pb2.DEADLINE_ACTION_ESCALATE,
        escalate_to_roles=["ops"],
        escalation_deadline=120,
        on_escalation_deadline=inbox_pb2.DEADLINE_ACTION_DENY,
        remind_before=1,
    ),
}


@contextmanager
def two_replicas(
    tmp_path: Path, base_url: str, prefix: str, database: str
) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    env = llm_env(
        base_url,
        AGENTD_REDIS_URL=REDIS_URL,
        AGENTD_REDIS_PREFIX=prefix,
        AGENTD_DATABASE_URL=database,
        AGENTD_AUTH="on",
        AGENTD_TAKEOVER_INTERVAL_SECONDS="0.25",  # how often deadlines are looked at
        AGENTD_GRANTS_REFRESH_SECONDS="0.25",
        AGENTD_APPROVAL_RULE='{"deadline_seconds": 3600}',  # the grants' own rules win
    )
    with (
        server_process(tmp_path / "a", env) as first,
        server_process(tmp_path / "b", env) as second,
    ):
        yield first, second


async def keys(database: str) -> dict[str, str]:
    """API keys, written before the servers start."""
    await migrate(database)
    db = Database.open(database)
    made: dict[str, str] = {}
    try:
        store = SqlKeyStore(db)
        for name, (principal, roles) in KEYS.items():
            key, made[name] = new_key("acme", principal, roles)
            await store.add(key)
    finally:
        await db.close()
    return made


async def status_of(client: AgentClient, task_id: str, wanted: int, seconds: float = 30) -> None:
    async with asyncio.timeout(seconds):
        while True:
            if (await client.get_task(task_id)).status == wanted:
                return
            await asyncio.sleep(0.05)


async def every_page(
    client: AgentClient, size: int, root_task_id: str = ""
) -> list[inbox_pb2.PendingAction]:
    found: list[inbox_pb2.PendingAction] = []
    token = ""
    for _ in range(100):
        page = await client.list_pending_actions(
            page_size=size, page_token=token, root_task_id=root_task_id
        )
        found.extend(page.actions)
        token = page.next_page_token
        if not token:
            return found
    raise AssertionError("more than 100 pages")


async def events_of(client: AgentClient, task_id: str) -> list[events_pb2.TaskEvent]:
    """The log of an ended task."""
    return [e async for e in client.stream_task_events(task_id)]


def of_kind(events: list[events_pb2.TaskEvent], kind: str) -> list[Any]:
    return [getattr(e, kind) for e in events if e.WhichOneof("payload") == kind]


async def test_deadlines_per_rule_across_two_replicas(
    tmp_path: Path, prefix: str, database: str
) -> None:
    secret = await keys(database)
    async with FakeOpenAIServer(REPLIES) as llm:
        with two_replicas(tmp_path, llm.base_url, prefix, database) as replicas:
            c = {
                (name, n): AgentClient(s.address, api_key=secret[name], timeout=30)
                for name in KEYS
                for n, s in enumerate(replicas)
            }
            try:
                await _grants(c)
                await _inbox_by_role(c)
                await _timed_out_and_escalated(c)
            finally:
                for client in c.values():
                    await client.close()


async def _grants(c: dict[tuple[str, int], AgentClient]) -> None:
    for owner, approval in RULES.items():
        made = await c[("root", 0)].create_grant(
            f"principal:{owner}",
            "calculator",
            tools_pb2.PERMISSION_LEVEL_READ,
            requires_approval=True,
            approval=approval,
        )
        assert made.approval == approval
    listed = {g.subject: g.approval for g in await c[("root", 1)].list_grants()}
    assert listed == {f"principal:{owner}": approval for owner, approval in RULES.items()}
    await asyncio.sleep(1.0)  # both replicas reload their grants every quarter second


async def _inbox_by_role(c: dict[tuple[str, int], AgentClient]) -> None:
    owners = ["alice", "bob"] * (TASKS // 2)
    semaphore = asyncio.Semaphore(10)

    async def start(n: int, owner: str) -> str:
        async with semaphore:
            client = c[(owner, n % 2)]
            task = await client.start_task(f"calc job {n}", mode=FC)
            await status_of(client, task.task_id, INPUT)
            return task.task_id

    started = await asyncio.gather(*(start(n, owner) for n, owner in enumerate(owners)))
    mine = {
        "fay": sorted(t for t, o in zip(started, owners, strict=True) if o == "alice"),
        "otto": sorted(t for t, o in zip(started, owners, strict=True) if o == "bob"),
    }
    for who, role in (("fay", "finance"), ("otto", "ops")):
        for n, size in ((0, 7), (1, 20), (1, 50)):
            listed = await every_page(c[(who, n)], size)
            assert sorted(a.task_id for a in listed) == mine[who], (who, n, size)
            assert {tuple(a.roles) for a in listed} == {(role,)}
            assert {(a.escalation_level, a.on_deadline) for a in listed} == {
                (0, inbox_pb2.DEADLINE_ACTION_DENY)
            }
            # no deadline of its own: as long as the task may wait (a day), not the
            # server rule's hour
            wait = listed[0].deadline.ToDatetime(UTC) - listed[0].created_at.ToDatetime(UTC)
            assert timedelta(hours=23) < wait <= timedelta(days=1)
    for owner in ("alice", "bob", "audrey"):
        assert await every_page(c[(owner, 0)], 50) == []

    # decided by its role (on the other replica), never by the other role
    task_id = mine["fay"][0]
    (action,) = await every_page(c[("fay", 0)], 50, root_task_id=task_id)
    with pytest.raises(client_errors.PermissionDeniedError, match="finance"):
        await c[("otto", 1)].approve_tool_call(task_id, action.request_id, "approve")
    await c[("fay", 1)].approve_tool_call(task_id, action.request_id, "approve")
    await status_of(c[("alice", 0)], task_id, DONE)
    assert (await c[("alice", 1)].get_task(task_id)).final_answer == "done"


async def _timed_out_and_escalated(c: dict[tuple[str, int], AgentClient]) -> None:
    carol = await c[("carol", 0)].start_task("calc job carol", mode=FC)
    dave = await c[("dave", 1)].start_task("calc job dave", mode=FC)

    # carol's: refused at its 2 s deadline, as a timeout
    await status_of(c[("carol", 1)], carol.task_id, DONE)
    assert (await c[("carol", 0)].get_task(carol.task_id)).final_answer == "timed out"
    events = await events_of(c[("carol", 1)], carol.task_id)
    (asked,) = of_kind(events, "approval_requested")
    assert list(asked.approver_roles) == ["finance"]
    (started,) = of_kind(events, "tool_call_started")
    given = asked.deadline.ToDatetime(UTC) - events[0].timestamp.ToDatetime(UTC)
    assert timedelta(seconds=1) < given <= timedelta(seconds=3)
    (passed,) = of_kind(events, "deadline_passed")
    assert (passed.request_id, passed.kind, passed.tool_name, passed.outcome) == (
        started.call_id,
        "approval",
        "calculator",
        "denied",
    )
    assert of_kind(events, "approval_decided") == []
    (finished,) = of_kind(events, "tool_call_finished")
    assert finished.error.message.endswith("no decision on calculator came before its deadline")
    audit = await c[("audrey", 0)].list_audit_records("tool_call", task_id=carol.task_id)
    (record,) = [r.tool_call for r in audit.records]
    assert (record.outcome, record.approval, record.approved_by) == (
        "timeout",
        "timed out: denied",
        "deadline",
    )
    history = await c[("audrey", 1)].list_action_history(task_id=carol.task_id)
    steps = [(e.kind, e.request_id, e.actor, e.outcome) for e in history.entries]
    assert steps == [
        (inbox_pb2.ACTION_HISTORY_KIND_OPENED, started.call_id, "", ""),
        (inbox_pb2.ACTION_HISTORY_KIND_TIMED_OUT, started.call_id, "deadline", "denied"),
    ]

    # dave's: with finance, then (4 s on) with ops, for two minutes
    async def escalated() -> inbox_pb2.PendingAction:
        async with asyncio.timeout(30):
            while True:
                found = await every_page(c[("otto", 0)], 50, root_task_id=dave.task_id)
                if found:
                    return found[0]
                await asyncio.sleep(0.1)

    moved = await escalated()
    assert (list(moved.roles), moved.escalation_level) == (["ops"], 1)
    assert moved.on_deadline == inbox_pb2.DEADLINE_ACTION_DENY
    left = moved.deadline.ToDatetime(UTC) - moved.created_at.ToDatetime(UTC)
    assert timedelta(seconds=120) < left < timedelta(seconds=150)
    assert moved.remind_at.ToDatetime(UTC) == moved.deadline.ToDatetime(UTC) - timedelta(seconds=1)
    for n in (0, 1):
        assert await every_page(c[("fay", n)], 50, root_task_id=dave.task_id) == []
    assert await every_page(c[("otto", 1)], 50, root_task_id=dave.task_id) == [moved]
    with pytest.raises(client_errors.PermissionDeniedError, match="ops"):
        await c[("fay", 0)].approve_tool_call(dave.task_id, moved.request_id, "approve")
    await c[("otto", 1)].approve_tool_call(dave.task_id, moved.request_id, "approve")
    await status_of(c[("dave", 0)], dave.task_id, DONE)
    events = await events_of(c[("dave", 1)], dave.task_id)
    (passed,) = of_kind(events, "deadline_passed")
    assert (passed.outcome, list(passed.approver_roles)) == ("escalated", ["ops"])
    assert passed.deadline == moved.deadline
    (decided,) = of_kind(events, "approval_decided")
    assert decided.decided_by == "otto"
    history = await c[("audrey", 0)].list_action_history(root_task_id=dave.task_id)
    moves = [(e.kind, e.actor, e.outcome, list(e.roles)) for e in history.entries]
    assert moves == [
        (inbox_pb2.ACTION_HISTORY_KIND_OPENED, "", "", ["finance"]),
        (inbox_pb2.ACTION_HISTORY_KIND_REMINDED, "deadline", "", ["finance"]),  # 1 s before
        (inbox_pb2.ACTION_HISTORY_KIND_ESCALATED, "deadline", "escalated", ["ops"]),
        (inbox_pb2.ACTION_HISTORY_KIND_ANSWERED, "otto", "approved", ["ops"]),
    ]
    assert history.entries[2].deadline == moved.deadline
