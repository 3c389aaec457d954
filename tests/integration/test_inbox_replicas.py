"""The inbox across two `agentd serve` processes on Redis and PostgreSQL, authentication on:
16 tasks started on both replicas wait for a person (approvals of calculator calls, as a
`billing` agent and as the default one; questions of a `support` agent; two of another
tenant). ListPendingActions, on either replica and page by page, lists exactly the
waiting ones oldest first to each of two approver roles; filtered by kind, agent and
task tree; an owner sees only the questions of its own tasks, a role that approves
nothing and another tenant's callers see none of them. An approval and a question
answered from the listing (ApproveToolCall, ProvideInput, on the other replica) leave
it at once and their tasks end; `agentd inbox` lists and denies from the command line."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from agent.llm.fakes.server import FakeOpenAIServer
from agentd.v1 import inbox_pb2, tasks_pb2
from agentd_client.client import AgentClient
from agentd_client.inbox import PendingKind
from records.keys import new_key
from stores.api_keys.sql import SqlKeyStore
from stores.sql.database import Database
from stores.sql.engine import migrate
from tests.contract.conftest import REDIS_URL
from tests.helpers import AGENTD_COMMAND, ROOT, ServerProcess, llm_env, server_process

pytestmark = [pytest.mark.redis, pytest.mark.postgres]
FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
APPROVAL = inbox_pb2.PENDING_ACTION_KIND_APPROVAL
QUESTION = inbox_pb2.PENDING_ACTION_KIND_QUESTION
REPLIES: list[dict[str, Any]] = [
    {"match": "1764", "text": "done", "repeat": -1},  # the approved call's result
    {"match": "account 7", "text": "done", "repeat": -1},  # the question's answer
    {"match": "rejected by", "text": "done", "repeat": -1},  # the denied call's refusal
    {"match": "calc job", "repeat": -1,
     "tool_calls": [{"name": "calculator", "arguments": {"expression": "42*42"}}]},
    {"match": "ask job", "repeat": -1,
     "tool_calls": [{"name": "ask_user", "arguments": {"question": "Which account?"}}]},
]  # fmt: skip
BILLING = "id: billing\ninstructions: You bill.\nmode: function_calling\ntools: [calculator]\n"
SUPPORT = "id: support\ninstructions: You help.\nmode: function_calling\nask_user: true\n"
KEYS = {  # name: (tenant, principal, roles)
    "fay": ("acme", "fay", ("finance",)),
    "otto": ("acme", "otto", ("ops",)),
    "alice": ("acme", "alice", ()),
    "bob": ("acme", "bob", ()),
    "audrey": ("acme", "audrey", ("auditor",)),
    "gina": ("globex", "gina", ()),
    "gus": ("globex", "gus", ("finance", "ops")),
}
ENDED = (tasks_pb2.TASK_STATUS_COMPLETED, tasks_pb2.TASK_STATUS_FAILED)


@contextmanager
def two_replicas(
    tmp_path: Path, base_url: str, prefix: str, database: str
) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "billing.yaml").write_text(BILLING)
    (agents / "support.yaml").write_text(SUPPORT)
    env = llm_env(
        base_url,
        AGENTD_REDIS_URL=REDIS_URL,
        AGENTD_REDIS_PREFIX=prefix,
        AGENTD_DATABASE_URL=database,
        AGENTD_AUTH="on",
        AGENTD_APPROVER_ROLES="finance,ops",  # two approver roles
        AGENTD_APPROVAL_TOOLS="calculator",
        AGENTD_AGENTS_DIR=str(agents),
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
        for name, (tenant, principal, roles) in KEYS.items():
            key, made[name] = new_key(tenant, principal, roles)
            await store.add(key)
    finally:
        await db.close()
    return made


async def status_of(client: AgentClient, task_id: str, wanted: tuple[int, ...]) -> int:
    async with asyncio.timeout(30):
        while True:
            task = await client.get_task(task_id)
            if task.status in wanted:
                return task.status
            await asyncio.sleep(0.05)


async def every_page(
    client: AgentClient,
    size: int,
    kinds: tuple[PendingKind, ...] = (),
    *,
    agent: str = "",
    root_task_id: str = "",
) -> list[inbox_pb2.PendingAction]:
    found: list[inbox_pb2.PendingAction] = []
    token = ""
    while True:
        page = await client.list_pending_actions(
            kinds=kinds, agent=agent, root_task_id=root_task_id, page_size=size, page_token=token
        )
        assert len(page.actions) == size or not page.next_page_token
        found.extend(page.actions)
        token = page.next_page_token
        if not token:
            return found


def ids(actions: list[inbox_pb2.PendingAction]) -> list[str]:
    return [a.task_id for a in actions]


async def test_the_inbox_across_two_replicas(tmp_path: Path, prefix: str, database: str) -> None:
    secret = await keys(database)
    async with FakeOpenAIServer(REPLIES) as llm:
        with two_replicas(tmp_path, llm.base_url, prefix, database) as replicas:
            clients = {
                (name, n): AgentClient(s.address, api_key=secret[name], timeout=30)
                for name in KEYS
                for n, s in enumerate(replicas)
            }
            try:
                await _inbox(clients, replicas, secret)
            finally:
                for client in clients.values():
                    await client.close()


async def _inbox(
    c: dict[tuple[str, int], AgentClient],
    replicas: tuple[ServerProcess, ServerProcess],
    secrets: dict[str, str],
) -> None:
    # 16 tasks, one after another (so in the order they begin to wait), on both replicas
    started: dict[str, list[str]] = {"billing": [], "default": [], "support": [], "globex": []}
    plan = [("alice", "billing")] * 6 + [("alice", "default")] * 4 + [("bob", "support")] * 4
    for n, (who, agent) in enumerate([*plan, ("gina", "globex"), ("gina", "globex")]):
        client = c[(who, n % 2)]
        asking = "ask job" if agent == "support" else "calc job"
        named = agent if agent in ("billing", "support") else ""
        task = await client.start_task(f"{asking} {n}", agent=named, mode=FC)
        await status_of(client, task.task_id, (tasks_pb2.TASK_STATUS_INPUT_REQUIRED,))
        started[agent].append(task.task_id)
    acme = started["billing"] + started["default"] + started["support"]

    # each approver role, on either replica, page by page: exactly acme's, oldest first
    for who, n, size in (("fay", 0, 5), ("fay", 1, 50), ("otto", 1, 4), ("otto", 0, 3)):
        assert ids(await every_page(c[(who, n)], size)) == acme, (who, n, size)
    listed = await every_page(c[("otto", 0)], 50)
    first, question = listed[0], listed[-1]
    assert (first.kind, first.tool_name, first.asked_by) == (APPROVAL, "calculator", "alice")
    assert dict(first.arguments) == {"expression": "42*42"}
    assert (list(first.roles), first.root_task_id) == (["finance", "ops"], first.task_id)
    assert first.agent.startswith("billing@")
    assert first.on_deadline == inbox_pb2.DEADLINE_ACTION_DENY
    assert first.deadline.ToDatetime() > first.created_at.ToDatetime()
    assert (question.kind, question.text, question.asked_by) == (QUESTION, "Which account?", "bob")
    assert question.request_id.startswith("question:")

    # filtered by kind, agent and tree
    approvals = started["billing"] + started["default"]
    assert ids(await every_page(c[("fay", 1)], 4, ("approval",))) == approvals
    assert ids(await every_page(c[("fay", 0)], 3, ("question",))) == started["support"]
    assert ids(await every_page(c[("otto", 0)], 50, ("question", "budget"))) == started["support"]
    assert ids(await every_page(c[("otto", 1)], 2, agent="billing")) == started["billing"]
    assert ids(await every_page(c[("otto", 1)], 50, agent=first.agent)) == started["billing"]
    assert ids(await every_page(c[("fay", 1)], 50, agent="support")) == started["support"]
    assert ids(await every_page(c[("fay", 1)], 50, agent="nobody")) == []
    tree = started["default"][1]
    assert ids(await every_page(c[("fay", 0)], 50, root_task_id=tree)) == [tree]

    # who sees what: the owner its own questions; no role that approves, no other tenant
    assert ids(await every_page(c[("bob", 1)], 2)) == started["support"]
    for who in ("alice", "audrey", "gina"):
        assert await every_page(c[(who, 0)], 50) == [], who
    assert ids(await every_page(c[("gus", 1)], 50)) == started["globex"]

    # answered from the listing on the other replica: gone from the inbox at once, done
    await c[("fay", 1)].approve_tool_call(first.task_id, first.request_id, "approve")
    await c[("bob", 0)].provide_input(question.task_id, question.request_id, "account 7")
    remaining = acme[1:-1]
    for who, n in (("fay", 0), ("otto", 1), ("fay", 1)):
        assert ids(await every_page(c[(who, n)], 5)) == remaining
    for owner, task_id in (("alice", first.task_id), ("bob", question.task_id)):
        assert await status_of(c[(owner, 1)], task_id, ENDED) == tasks_pb2.TASK_STATUS_COMPLETED

    # the command line: a table of what waits, then a denial from it
    key, address = secrets["otto"], replicas[1].address
    table = await agentd(address, key, "inbox", "--kind", "approval")
    rows = [line.split() for line in table.splitlines()]
    assert rows[0][:4] == ["kind", "task", "root", "request"]
    assert [r[1] for r in rows[1:]] == approvals[1:]
    assert all(r[0] == "approval" and r[5] == "alice" for r in rows[1:])
    denied = rows[1]
    said = await agentd(address, key, "inbox", "deny", denied[1], denied[3], "--comment", "no")
    assert said.startswith(f"denied {denied[3]}; task {denied[1]} is ")
    assert ids(await every_page(c[("fay", 0)], 50, ("approval",))) == approvals[2:]
    assert await status_of(c[("alice", 0)], denied[1], ENDED) == tasks_pb2.TASK_STATUS_COMPLETED


async def agentd(address: str, key: str, *args: str) -> str:
    """What the CLI printed, in a process of its own (which must succeed)."""
    env = {"PATH": "/usr/bin:/bin", "AGENTD_ADDRESS": address, "AGENTD_API_KEY": key}
    pipe = asyncio.subprocess.PIPE
    process = await asyncio.create_subprocess_exec(
        *AGENTD_COMMAND, *args, cwd=ROOT, env=env, stdout=pipe, stderr=pipe
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, err.decode()
    return out.decode()
