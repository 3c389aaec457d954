"""Remote A2A agents as sub-agents: a lead on one agentd delegates to an agent served by a
second agentd over A2A gRPC (the official SDK's client), through the fake model. The
lead's stream shows the subtask pair and the remote's answer, ListTasks(parent) lists
the child, the remote's usage is in the lead's, and cancelling the lead cancels the
remote task."""

from __future__ import annotations

import asyncio
import socket
import time
from pathlib import Path
from typing import Any

from a2a.types import a2a_pb2, a2a_pb2_grpc

from agentd.v1 import tasks_pb2
from tests.integration.harness import Harness, assert_well_formed, final, harness, of_kind

USAGE = {"prompt_tokens": 10, "completion_tokens": 5}
HELPER = """\
id: helper
description: Answers arithmetic
instructions: You are the remote helper.
mode: function_calling
tools: [calculator]
"""


def lead(port: int, card_url: str = "") -> str:
    where = f"    card_url: {card_url}\n" if card_url else f"    url: 127.0.0.1:{port}\n"
    return (
        "id: lead\n"
        "description: Delegates to a remote agent\n"
        "instructions: You are the lead.\n"
        "mode: function_calling\n"
        "tools: [current_time]\n"
        "remote_delegates:\n"
        "  - id: far-helper\n"
        + where
        + ("" if card_url else "    agent: helper\n")
        + "    description: A helper on another agentd\n"
    )


def folder(where: Path, name: str, text: str) -> Path:
    path = where / name
    path.mkdir()
    (path / f"{name}.yaml").write_text(text)
    return path


def delegate(task: str) -> dict[str, Any]:
    return {"name": "agent_far-helper", "arguments": {"task": task}}


def remote_settings(where: Path) -> dict[str, Any]:
    return {"a2a": True, "agents_dir": folder(where, "helper", HELPER)}


LOCAL: dict[str, Any] = {"http_allowed_networks": ["127.0.0.1/32"]}


async def remote_tasks(remote: Harness) -> list[a2a_pb2.Task]:
    stub: Any = a2a_pb2_grpc.A2AServiceStub(remote.running.channel)  # type: ignore[no-untyped-call]
    listed = await stub.ListTasks(a2a_pb2.ListTasksRequest(tenant="helper"))
    return list(listed.tasks)


async def test_a_lead_delegates_to_an_agent_on_another_agentd_over_a2a(tmp_path: Path) -> None:
    remote_replies = [{"match": "You are the remote helper", "text": "42", "usage": USAGE}]
    lead_replies = [
        {"match": "You are the lead", "tool_calls": [delegate("what is 6*7?")], "usage": USAGE},
        {"match": "42", "text": "The helper says 42", "usage": USAGE},
    ]
    async with harness(tmp_path / "b", remote_replies, **remote_settings(tmp_path)) as remote:
        agents = folder(tmp_path, "lead", lead(remote.server.port))
        async with harness(tmp_path / "a", lead_replies, agents_dir=agents, **LOCAL) as h:
            events = await h.run("ask the helper", agent="lead")

            assert_well_formed(events)
            assert final(events).text == "The helper says 42"
            started = of_kind(events, "subtask_started")
            finished = of_kind(events, "subtask_finished")
            assert [s.agent for s in started] == ["far-helper@1"]
            assert len(finished) == 1
            assert finished[0].answer == "42"
            assert finished[0].status == tasks_pb2.TASK_STATUS_COMPLETED
            assert finished[0].usage.total_tokens == 15  # the remote's own usage
            child_id = started[0].child_task_id
            parent_id = events[0].task_id

            listed = await h.client.list_tasks(parent_task_id=parent_id)
            assert [t.task_id for t in listed.tasks] == [child_id]
            parent = await h.client.get_task(parent_id)
            assert parent.usage.total_tokens == 15 * 3  # two lead calls + the remote's

            done = await remote_tasks(remote)
            assert len(done) == 1
            assert done[0].status.state == a2a_pb2.TASK_STATE_COMPLETED
            # the message id was the child task's id: sending it again is the same task
            stub: Any = a2a_pb2_grpc.A2AServiceStub(remote.running.channel)  # type: ignore[no-untyped-call]
            message = a2a_pb2.Message(
                message_id=child_id,
                role=a2a_pb2.ROLE_USER,
                parts=[a2a_pb2.Part(text="what is 6*7?")],
            )
            again = await stub.SendMessage(
                a2a_pb2.SendMessageRequest(message=message, tenant="helper")
            )
            assert again.task.id == done[0].id
            assert len(await remote_tasks(remote)) == 1


async def test_a_remote_found_by_its_card_url_answers(tmp_path: Path) -> None:
    remote_replies = [{"match": "You are the remote helper", "text": "42"}]
    lead_replies = [
        {"match": "You are the lead", "tool_calls": [delegate("what is 6*7?")]},
        {"match": "42", "text": "The card's helper says 42"},
    ]
    settings = {**remote_settings(tmp_path), "http_address": "127.0.0.1:0"}
    async with harness(tmp_path / "b", remote_replies, **settings) as remote:
        serving: Any = remote.server.a2a
        card_url = (
            f"{serving.handler.cards.addresses.jsonrpc}agents/helper/.well-known/agent-card.json"
        )
        agents = folder(tmp_path, "lead", lead(0, card_url=card_url))
        async with harness(tmp_path / "a", lead_replies, agents_dir=agents, **LOCAL) as h:
            events = await h.run("ask the helper", agent="lead")

            assert final(events).text == "The card's helper says 42"
            [finished] = of_kind(events, "subtask_finished")
            assert finished.answer == "42"
            [done] = await remote_tasks(remote)
            assert done.status.state == a2a_pb2.TASK_STATE_COMPLETED


async def test_cancelling_the_lead_cancels_the_remote_task(tmp_path: Path) -> None:
    remote_replies = [{"match": "You are the remote helper", "hold": "never", "text": "late"}]
    lead_replies = [{"match": "You are the lead", "tool_calls": [delegate("take your time")]}]
    async with harness(tmp_path / "b", remote_replies, **remote_settings(tmp_path)) as remote:
        agents = folder(tmp_path, "lead", lead(remote.server.port))
        async with harness(tmp_path / "a", lead_replies, agents_dir=agents, **LOCAL) as h:
            parent_id, child_id = "", ""
            async for event in h.client.execute("ask the helper", agent="lead"):
                parent_id = event.task_id
                if event.WhichOneof("payload") == "subtask_started":
                    child_id = event.subtask_started.child_task_id
                    break
            deadline = time.monotonic() + 10
            while not remote.llm.requests:  # the remote agent is asking its model
                assert time.monotonic() < deadline, "the remote task never started"
                await asyncio.sleep(0.05)
            [running] = await remote_tasks(remote)
            assert running.status.state == a2a_pb2.TASK_STATE_WORKING

            await h.client.cancel_task(parent_id)
            states: list[int] = []
            while time.monotonic() < deadline:
                states = [t.status.state for t in await remote_tasks(remote)]
                if states == [a2a_pb2.TASK_STATE_CANCELED]:
                    break
                await asyncio.sleep(0.05)
            assert states == [a2a_pb2.TASK_STATE_CANCELED]
            child = await h.client.get_task(child_id)
            assert child.status == tasks_pb2.TASK_STATUS_CANCELLED
            parent = await h.client.get_task(parent_id)
            assert parent.status == tasks_pb2.TASK_STATUS_CANCELLED
            stream = [e async for e in h.client.stream_task_events(parent_id)]
            assert [e.child_task_id for e in of_kind(stream, "subtask_started")] == [child_id]


async def test_a_remote_outside_the_allowed_destinations_fails_the_child(tmp_path: Path) -> None:
    lead_replies = [
        {"match": "You are the lead", "tool_calls": [delegate("anything")]},
        {"match": "not an allowed destination", "text": "could not reach it"},
    ]
    agents = folder(tmp_path, "lead", lead(1))  # loopback, not enabled on this server
    async with harness(tmp_path / "a", lead_replies, agents_dir=agents) as h:
        events = await h.run("ask the helper", agent="lead")

        assert final(events).text == "could not reach it"
        [finished] = of_kind(events, "subtask_finished")
        assert finished.status == tasks_pb2.TASK_STATUS_FAILED
        assert "not an allowed destination" in finished.error


async def test_the_remote_is_called_at_the_address_its_check_approved(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """The destination check resolves the remote's host name; the call then goes to the
    address that check approved, never to a second resolution of the name (a DNS answer
    that changes in between must not move the call). Here the check's resolver says
    `localhost` is 127.0.0.2, where the remote listens; the system's resolver (which a
    channel opened on the name would ask) says 127.0.0.1 or ::1, where nothing does."""
    loop = asyncio.get_running_loop()
    system = loop.getaddrinfo

    async def resolver(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host == "localhost":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.2", port or 0))]
        return await system(host, port, *args, **kwargs)

    remote_replies = [{"match": "You are the remote helper", "text": "42", "usage": USAGE}]
    lead_replies = [
        {"match": "You are the lead", "tool_calls": [delegate("what is 6*7?")], "usage": USAGE},
        {"match": "42", "text": "The helper says 42", "usage": USAGE},
    ]
    settings = {**remote_settings(tmp_path), "address": "127.0.0.2:0"}
    async with harness(tmp_path / "b", remote_replies, **settings) as remote:
        text = lead(remote.server.port).replace("127.0.0.1:", "localhost:")
        agents = folder(tmp_path, "lead", text)
        allowed = {"http_allowed_networks": ["127.0.0.2/32"]}
        async with harness(tmp_path / "a", lead_replies, agents_dir=agents, **allowed) as h:
            monkeypatch.setattr(loop, "getaddrinfo", resolver)
            events = await h.run("ask the helper", agent="lead")
            assert final(events).text == "The helper says 42"
            [finished] = of_kind(events, "subtask_finished")
            assert (finished.answer, finished.status) == ("42", tasks_pb2.TASK_STATUS_COMPLETED)
