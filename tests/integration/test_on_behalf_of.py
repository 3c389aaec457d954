"""A gateway names the end user it calls for: rate limits, tasks, ListTasks and audit
records are that user's; only a principal with a gateway role may do it."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentd_client import errors as client_errors
from agentd_client.client import AgentClient
from records.keys import new_key
from tests.integration.trust import Trust, trusted

REPLIES = [{"text": "done", "repeat": -1}]


async def _as(t: Trust, key: str, user: str | None) -> AgentClient:
    metadata = [("agentd-on-behalf-of", user)] if user is not None else []
    client = AgentClient(t.address, api_key=key, timeout=20, metadata=metadata)
    t.clients.append(client)
    return client


async def _key(t: Trust, tenant: str, principal: str, *roles: str) -> str:
    key, plaintext = new_key(tenant, principal, roles)
    await t.server.durable.api_keys.add(key)
    return plaintext


async def test_a_gateway_acts_for_each_end_user(tmp_path: Path) -> None:
    async with trusted(tmp_path, REPLIES, tool_permission="none", rate_limits="ListTools=2/m") as t:
        gateway = await _key(t, "acme", "web-gateway", "gateway", "auditor")
        alice, bob = await _as(t, gateway, "alice@example.com"), await _as(t, gateway, "bob")
        events = [e async for e in alice.execute("summarise", tools=["calculator"])]
        task = await alice.get_task(events[0].task_id)
        assert task.final_answer == "done"
        assert [t_.task_id for t_ in (await alice.list_tasks()).tasks] == [task.task_id]
        assert (await bob.list_tasks()).tasks == []  # the tasks are alice's, not the gateway's
        assert (await bob.get_task(task.task_id)).task_id == task.task_id  # same tenant

        for _ in range(2):
            await alice.list_tools()
        with pytest.raises(client_errors.RateLimitedError):
            await alice.list_tools()
        await bob.list_tools()  # bob has a bucket of his own

        records = [r for r in await t.rpc_records() if r.method.endswith("/Execute")]
        assert [(r.principal_id, r.via, r.tenant) for r in records] == [
            ("alice@example.com", "web-gateway", "acme")
        ]
        # The user holds the gateway's other roles (auditor here), never the gateway role.
        audit = await alice.list_audit_records("rpc", principal_id="alice@example.com")
        assert audit.records
        assert {r.rpc.via for r in audit.records} == {"web-gateway"}


async def test_only_a_gateway_may_name_someone_else(tmp_path: Path) -> None:
    async with trusted(tmp_path, REPLIES, tool_permission="none") as t:
        plain = await _key(t, "acme", "svc", "admin")
        with pytest.raises(client_errors.PermissionDeniedError) as refused:
            await (await _as(t, plain, "alice")).list_tools()
        assert "gateway" in str(refused.value)
        gateway = await _key(t, "acme", "gw", "gateway")
        for bad in ("a" * 129, "alice smith", "alice;drop", ""):
            with pytest.raises(client_errors.InvalidArgumentError):
                await (await _as(t, gateway, bad)).list_tools()
        # Without the header the gateway is itself.
        assert await (await _as(t, gateway, None)).list_tools()
        codes = {(r.principal_id, r.code) for r in await t.rpc_records()}
        assert ("svc", "PERMISSION_DENIED") in codes


async def test_with_auth_off_the_anonymous_caller_can_approve(tmp_path: Path) -> None:
    replies = [
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "x"}}]},
        {"text": "written"},
    ]
    async with trusted(
        tmp_path, replies, auth="off", tool_permission="write", approval_tools=["write_file"]
    ) as t:
        client = AgentClient(t.address, timeout=20)
        t.clients.append(client)
        task_id, call_id = "", ""
        async for event in client.execute("write a.txt"):
            task_id = event.task_id
            if event.WhichOneof("payload") == "approval_requested":
                call_id = event.approval_requested.call_id
                await client.approve_tool_call(task_id, call_id, "approve")
        task = await client.get_task(task_id)
        assert task.final_answer == "written"
        assert (tmp_path / "workspace" / "a.txt").read_text() == "x"
