"""The Python client as a newcomer meets it: the server and the key from the environment,
one-line errors, and the synchronous client (`agentd_client.sync.AgentClient`, also
`agentd_client.SyncAgentClient`) over the whole service, against the real server."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import grpc
import pytest

from agentd.v1 import agents_pb2, events_pb2, tasks_pb2, tools_pb2
from agentd_client import AgentClient, SyncAgentClient, errors
from agentd_client import sync as sync_client
from records.keys import new_key
from tests.integration.harness import PLANNER, assert_well_formed, final, harness, of_kind

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING


async def test_the_client_finds_the_server_and_the_key_in_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with harness(tmp_path, [], auth="on") as h:
        key, plaintext = new_key("acme", "newcomer", ())
        await h.server.durable.api_keys.add(key)
        monkeypatch.setenv("AGENTD_ADDRESS", h.running.address)
        monkeypatch.setenv("AGENTD_API_KEY", plaintext)

        async with AgentClient() as client:
            assert client.target == h.running.address
            assert (await client.call_tool("calculator", {"expression": "6*7"})).text == "42"
        sync_answer = await asyncio.to_thread(_sync_call, None, None)
        assert sync_answer == "42"

        # What is given explicitly wins over the environment.
        for explicit in ({"api_key": "agd_000000000000_wrong"}, {"api_key": ""}):
            async with AgentClient(**explicit) as client:  # type: ignore[arg-type]
                with pytest.raises(errors.UnauthenticatedError) as refused:
                    await client.call_tool("calculator", {"expression": "1"})
            assert str(refused.value).startswith("UNAUTHENTICATED: ")  # the code once
        async with AgentClient("127.0.0.1:1", timeout=5) as client:
            with pytest.raises(errors.UnavailableError):
                await client.call_tool("calculator", {"expression": "1"})
        with pytest.raises(errors.UnavailableError):
            await asyncio.to_thread(_sync_call, "127.0.0.1:1", None)
        with pytest.raises(errors.UnauthenticatedError):
            await asyncio.to_thread(_sync_call, None, "")


def _sync_call(target: str | None, api_key: str | None) -> str:
    with SyncAgentClient(target, api_key=api_key, timeout=5) as client:
        return client.call_tool("calculator", {"expression": "6*7"}).text


PLANNED = {
    "steps": [
        {"id": "s1", "description": "add", "tool": "calculator",
         "arguments": {"expression": "2+3"}},
        {"id": "s2", "description": "report", "depends_on": ["s1"]},
    ]
}  # fmt: skip
REPLIES: list[dict[str, Any]] = [
    {"match": "sync: what time", "tool_calls": [
        {"name": "current_time", "arguments": {"timezone": "UTC"}}]},
    {"match": "sync: what time", "text": "it is now"},
    {"match": PLANNER, "json": PLANNED},
    {"match": "sync: started", "text": "started and done"},
    {"match": "sync: slow", "delay_seconds": 3, "text": "too late"},
    {"match": "sync: which account", "tool_calls": [
        {"name": "ask_user", "arguments": {"question": "Which account?"}}]},
    {"match": "sync: which account", "text": "account 7 owes 42"},
]  # fmt: skip


async def test_the_sync_client_covers_the_service(tmp_path: Path) -> None:
    settings = {"approval_tools": ["current_time"],
                "anonymous_roles": ["admin", "approver", "auditor"]}  # fmt: skip
    async with harness(tmp_path, REPLIES, **settings) as h:
        # Blocking calls from a worker thread, as a script would make them; the server
        # runs on this thread's event loop meanwhile.
        seen = await asyncio.to_thread(_session, h.running.address)
    assert_well_formed(seen["approved"])
    assert of_kind(seen["approved"], "approval_decided")[0].decision == (
        events_pb2.APPROVAL_DECISION_APPROVE
    )
    assert final(seen["approved"]).text == "it is now"
    assert_well_formed(seen["started"])
    assert final(seen["started"]).text == "started and done"
    assert_well_formed(seen["asked"])
    assert final(seen["asked"]).text == "account 7 owes 42"


def _session(address: str) -> dict[str, list[events_pb2.TaskEvent]]:
    seen: dict[str, list[events_pb2.TaskEvent]] = {}
    with sync_client.AgentClient(address, timeout=20) as client:
        assert client.health() == "SERVING"
        assert "calculator" in [t.name for t in client.list_tools()]
        assert client.call_tool("calculator", {"expression": "2*21"}).text == "42"
        with pytest.raises(errors.ToolArgumentsInvalidError) as invalid:
            client.call_tool("calculator", {})
        assert [v.field for v in invalid.value.field_violations] == ["arguments.expression"]

        seen["approved"] = _approved(client)
        plan = client.plan("sync: plan two steps", tools=["calculator"])
        assert [(s.id, list(s.depends_on)) for s in plan.steps] == [("s1", []), ("s2", ["s1"])]

        started = client.start_task("sync: started", mode=FC, labels={"via": "sync"})
        seen["started"] = list(client.stream_task_events(started.task_id))
        assert client.get_task(started.task_id).status == tasks_pb2.TASK_STATUS_COMPLETED
        listed = client.list_tasks(labels={"via": "sync"})
        assert [t.task_id for t in listed.tasks] == [started.task_id]
        slow = client.start_task("sync: slow", mode=FC)
        cancelled = client.cancel_task(slow.task_id, "no time")
        assert cancelled.status == tasks_pb2.TASK_STATUS_CANCELLED
        with pytest.raises(errors.TaskNotFoundError):
            client.get_task("task_000000000000000000000000")

        seen["asked"] = _asked(client)
        _admin(client)
        records = client.list_audit_records("tool_call", tool_name="calculator")
        assert records.records
    return seen


def _approved(client: sync_client.AgentClient) -> list[events_pb2.TaskEvent]:
    events: list[events_pb2.TaskEvent] = []
    stream = client.execute("sync: what time is it?", mode=FC)
    for event in stream:  # an iterator; approving while it runs, on the same channel
        events.append(event)
        if event.WhichOneof("payload") == "approval_requested":
            asked = event.approval_requested
            [pending] = client.list_pending_actions(kinds=["approval"]).actions
            assert (pending.task_id, pending.request_id) == (event.task_id, asked.call_id)
            client.approve_tool_call(event.task_id, asked.call_id, "approve", comment="ok")
    return events


def _asked(client: sync_client.AgentClient) -> list[events_pb2.TaskEvent]:
    agent = agents_pb2.Agent(id="asking", instructions="Ask when unsure.", ask_user=True)
    assert client.create_agent(agent).version == 1
    agent.description = "asks"
    assert client.update_agent(agent).version == 2
    assert client.get_agent("asking@1").description == ""
    assert [a.id for a in client.list_agents()] == ["asking"]
    events: list[events_pb2.TaskEvent] = []
    for event in client.execute("sync: which account owes?", agent="asking", mode=FC):
        events.append(event)
        if event.WhichOneof("payload") == "input_requested":
            client.provide_input(event.task_id, event.input_requested.request_id, "7")
    client.delete_agent("asking")
    with pytest.raises(errors.AgentNotFoundError):
        client.get_agent("asking")
    return events


def _admin(client: sync_client.AgentClient) -> None:
    chat = client.create_conversation("sync chat")
    assert [c.conversation_id for c in client.list_conversations().conversations] == [
        chat.conversation_id
    ]
    assert client.get_conversation(chat.conversation_id).conversation.title == "sync chat"
    client.delete_conversation(chat.conversation_id)
    with pytest.raises(errors.ConversationNotFoundError):
        client.get_conversation(chat.conversation_id)
    grant = client.create_grant("role:admin", "calculator", tools_pb2.PERMISSION_LEVEL_READ)
    assert grant.grant_id in [g.grant_id for g in client.list_grants()]
    assert client.revoke_grant(grant.grant_id).HasField("revoked_at")


def test_a_sync_stream_raises_the_typed_error_when_iterated() -> None:
    with SyncAgentClient("127.0.0.1:1", timeout=1) as client:
        events = client.stream_task_events("task_x")
        with pytest.raises(errors.UnavailableError) as down:
            next(iter(events))
        assert down.value.code is grpc.StatusCode.UNAVAILABLE
