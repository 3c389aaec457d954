"""Waiting costs nothing: a task that waits for a person or for its children gives up its
running place (it parks), and wakes when what it waits for moves on.

Counts, not timings: a process with five running places holds a hundred tasks waiting
for approval and still runs a new task at once; leads that delegate complete with two
places; a queued conversation turn holds no place; deadlines end waits as what they are.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from agent.llm.fakes.server import FakeOpenAIServer
from agentd.v1 import tasks_pb2
from agentd_client import errors as client_errors
from agentd_client.client import AgentClient
from tests.integration.harness import Harness, final, harness, model_settings, of_kind
from tests.servers import QUIET, running_server, settings_in

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
INPUT = tasks_pb2.TASK_STATUS_INPUT_REQUIRED
DONE = tasks_pb2.TASK_STATUS_COMPLETED
PRODUCT = "7006652"  # 1234*5678: what the calculator answers, found in the next request
APPROVE = {
    "approval_tools": ["calculator"],
    "anonymous_roles": ["approver"],
    "critic_policy": "off",
}


async def until(condition: Callable[[], Awaitable[bool]], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not await condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


async def start(client: AgentClient, goal: str, **options: Any) -> str:
    """StartTask, tried again (as a client does, after the delay it is told) while the
    server's places are full; the task's id."""
    for _ in range(600):
        try:
            return (await client.start_task(goal, **options)).task_id
        except client_errors.ResourceExhaustedError:
            await asyncio.sleep(0.05)
    raise AssertionError(f"{goal!r} was refused for half a minute")


async def statuses(client: AgentClient, task_ids: list[str]) -> list[int]:
    found = await asyncio.gather(*(client.get_task(t) for t in task_ids))
    return [t.status for t in found]


async def pending_approvals(client: AgentClient, task_id: str) -> list[str]:
    """The call ids a task waiting for approval asked to have approved (from its log)."""
    ids = []
    async for event in client.stream_task_events(task_id):
        if event.WhichOneof("payload") == "approval_requested":
            ids.append(event.approval_requested.call_id)
            break
    return ids


APPROVAL_SCRIPT: list[dict[str, Any]] = [
    {"match": PRODUCT, "text": f"it is {PRODUCT}", "repeat": -1},
    {"match": "multiply for me", "repeat": -1,
     "tool_calls": [{"name": "calculator", "arguments": {"expression": "1234*5678"}}]},
    {"match": "no tools needed", "text": "done at once", "repeat": -1},
]  # fmt: skip


async def test_a_hundred_tasks_waiting_for_approval_hold_none_of_five_running_places(
    tmp_path: Path,
) -> None:
    settings = {**APPROVE, "max_running_tasks": 5, "max_queued_tasks": 100}
    async with harness(tmp_path, APPROVAL_SCRIPT, **settings) as h:
        ids = [await start(h.client, f"multiply for me #{i}", mode=FC) for i in range(100)]

        async def all_waiting() -> bool:
            return await statuses(h.client, ids) == [INPUT] * 100

        await until(all_waiting, 60, "100 tasks waiting for approval")
        assert h.server.engine.running_count() == 0  # none of them holds a place here
        waits = h.server.durable.inbox.waits
        open_approvals = [w for t in ids for w in await waits.of_task(t)]
        assert len(open_approvals) == 100

        # A task that needs no approval starts and completes at once.
        events = await h.run("no tools needed", mode=FC)
        assert final(events).text == "done at once"

        for task_id in ids:
            (call_id,) = await pending_approvals(h.client, task_id)
            await h.client.approve_tool_call(task_id, call_id, "approve")

        async def all_done() -> bool:
            return await statuses(h.client, ids) == [DONE] * 100

        await until(all_done, 120, "100 approved tasks to complete")
        answers = {(await h.client.get_task(t)).final_answer for t in ids}
        assert answers == {f"it is {PRODUCT}"}
        left = [w for t in ids for w in await waits.of_task(t)]
        assert left == []  # forgotten as each ended
        checkpoints = h.server.durable.checkpoints
        kept = [t for t in ids if await checkpoints.load("default", t) is not None]
        assert kept == []  # the checkpoint each parked with, too


LEAD = """\
id: lead
description: Delegates its work in three parts
instructions: You are the lead.
mode: function_calling
tools: []
delegates: [researcher]
"""
RESEARCHER = """\
id: researcher
description: Answers one part
instructions: You are the researcher.
mode: function_calling
tools: [calculator]
"""


def team_script(leads: int) -> list[dict[str, Any]]:
    """Lead n delegates `part n-a/b/c`; each part answers `n-x done`; lead n, seeing its
    children's answers, answers with all three."""
    replies: list[dict[str, Any]] = []
    for n in range(leads):
        parts = [f"part {n}-{x}" for x in "abc"]
        replies.append({"match": f"{n}-a done", "text": f"lead {n}: {n}-a, {n}-b, {n}-c done"})
        replies.append(
            {
                "match": f"lead goal {n}.",
                "tool_calls": [
                    {"name": "agent_researcher", "arguments": {"task": p}} for p in parts
                ],
            }
        )
        replies += [{"match": p, "text": f"{p.removeprefix('part ')} done"} for p in parts]
    return replies


async def test_twenty_leads_of_three_children_complete_with_two_running_places(
    tmp_path: Path,
) -> None:
    where = tmp_path / "agents"
    where.mkdir()
    (where / "lead.yaml").write_text(LEAD)
    (where / "researcher.yaml").write_text(RESEARCHER)
    settings = {"agents_dir": where, "max_running_tasks": 2, "critic_policy": "off"}
    async with harness(tmp_path, team_script(20), **settings) as h:
        ids = [await start(h.client, f"lead goal {n}.", agent="lead") for n in range(20)]

        async def all_done() -> bool:
            return all(
                s in (DONE, tasks_pb2.TASK_STATUS_FAILED) for s in await statuses(h.client, ids)
            )

        await until(all_done, 120, "20 leads to end")
        for n, task_id in enumerate(ids):
            lead = await h.client.get_task(task_id)
            assert lead.status == DONE, (n, lead.error)
            assert lead.final_answer == f"lead {n}: {n}-a, {n}-b, {n}-c done"
            children = [await h.client.get_task(c.task_id) for c in lead.children]
            assert sorted(c.final_answer for c in children) == [f"{n}-{x} done" for x in "abc"]
            assert all(c.status == DONE for c in children)  # none refused, none failed
        # Each lead's second request carried its three children's answers.
        for n in range(20):
            seen = [str(r["messages"]) for r in h.llm.requests if f"lead goal {n}." in str(r)]
            assert any(all(f"{n}-{x} done" in text for x in "abc") for text in seen)


async def test_a_queued_conversation_turn_holds_no_place(tmp_path: Path) -> None:
    """ENQUEUE: the second turn parks (PENDING) until the first ends, holding no running
    place and no queue place meanwhile."""
    replies = [
        {"match": "first turn", "hold": "first", "text": "first done"},
        {"match": "second turn", "text": "second done"},
    ]
    settings = {"max_running_tasks": 1, "max_queued_tasks": 1, "critic_policy": "off"}
    async with harness(tmp_path, replies, **settings) as h:
        conversation = await h.client.create_conversation()
        cid = conversation.conversation_id
        first = await h.client.start_task("first turn", mode=FC, conversation_id=cid)
        await until(lambda: _true(h.llm.held("first")), 10, "the first turn to ask its model")
        second = await h.client.start_task(
            "second turn", mode=FC, conversation_id=cid, busy_policy="enqueue"
        )
        await until(lambda: _parked(h, second.task_id), 10, "the second turn to park")
        assert (await h.client.get_task(second.task_id)).status == tasks_pb2.TASK_STATUS_PENDING
        assert h.server.engine.running_count() == 1  # only the first holds a place

        h.llm.release("first")
        await until(
            lambda: _status_is(h.client, second.task_id, DONE), 20, "the second turn to complete"
        )
        done = await h.client.get_task(first.task_id)
        assert done.final_answer == "first done"
        assert (await h.client.get_task(second.task_id)).final_answer == "second done"


async def test_a_queued_turn_whose_wait_passes_its_deadline_fails_named_once(
    tmp_path: Path,
) -> None:
    """A turn that does not come within the task's wait limit ends it FAILED
    (WAIT_DEADLINE), woken once: never parked again on a wait that is over."""
    replies = [
        {"match": "first turn", "hold": "first", "text": "first done"},
        {"match": "second turn", "text": "second done"},
    ]
    settings = {"critic_policy": "off", "takeover_interval_seconds": 0.2}
    async with harness(tmp_path, replies, **settings) as h:
        parks = count_parks(h)
        cid = (await h.client.create_conversation()).conversation_id
        first = await h.client.start_task("first turn", mode=FC, conversation_id=cid)
        await until(lambda: _true(h.llm.held("first")), 10, "the first turn to ask its model")
        second = await h.client.start_task(
            "second turn", mode=FC, conversation_id=cid, busy_policy="enqueue", wait_timeout=1.0
        )
        failed = tasks_pb2.TASK_STATUS_FAILED
        await until(lambda: _status_is(h.client, second.task_id, failed), 20, "its deadline")
        ended = await h.client.get_task(second.task_id)
        assert ended.error.reason == "WAIT_DEADLINE"
        assert f"its turn in conversation {cid} did not come in time" in ended.error.message
        assert parks.get(second.task_id, 0) == 1
        h.llm.release("first")
        await until(lambda: _status_is(h.client, first.task_id, DONE), 20, "the first turn")


def count_parks(h: Harness) -> dict[str, int]:
    """Counts each task's parks from now on (the engine's parking, wrapped)."""
    parks: dict[str, int] = {}
    parking = h.server.engine._parking
    park = parking.park

    async def counted(run: Any, parked: Any) -> None:
        parks[run.task.task_id] = parks.get(run.task.task_id, 0) + 1
        await park(run, parked)

    parking.park = counted  # type: ignore[method-assign]
    return parks


async def _true(value: bool) -> bool:
    return value


async def _parked(h: Harness, task_id: str) -> bool:
    return any(w.state.value == "open" for w in await h.server.durable.inbox.waits.of_task(task_id))


async def _status_is(client: AgentClient, task_id: str, status: int) -> bool:
    return (await client.get_task(task_id)).status == status


async def test_an_unanswered_approval_is_denied_at_its_deadline_as_a_timeout(
    tmp_path: Path,
) -> None:
    """The wait's deadline is the task's wait limit (`wait_timeout`); passed, the call is
    refused as a timeout (no person decided) and the model goes on."""
    replies = [
        {"match": "came before its deadline", "text": "nobody approved in time"},
        APPROVAL_SCRIPT[1],
    ]
    settings = {**APPROVE, "takeover_interval_seconds": 0.2}
    async with harness(tmp_path, replies, **settings) as h:
        events = await h.run("multiply for me", mode=FC, wait_timeout=1.0)
        assert final(events).text == "nobody approved in time"
        (finished,) = of_kind(events, "tool_call_finished")
        assert finished.error.message.endswith("no decision on calculator came before its deadline")
        assert not of_kind(events, "approval_decided")
        statuses_seen = [s.current for s in of_kind(events, "status_changed")]
        assert statuses_seen[-3:] == [INPUT, tasks_pb2.TASK_STATUS_RUNNING, DONE]


async def test_the_task_clock_stops_while_it_waits(tmp_path: Path) -> None:
    """A task whose time limit is shorter than its wait completes: parked, its clock does
    not run."""
    async with harness(tmp_path, APPROVAL_SCRIPT, **APPROVE) as h:
        task = await h.client.start_task("multiply for me", mode=FC, task_timeout=1.0)
        await until(lambda: _status_is(h.client, task.task_id, INPUT), 10, "the approval")
        await asyncio.sleep(1.5)  # longer than its time limit, waiting
        (call_id,) = await pending_approvals(h.client, task.task_id)
        await h.client.approve_tool_call(task.task_id, call_id, "approve")
        await until(lambda: _status_is(h.client, task.task_id, DONE), 10, "the task to end")
        ended = await h.client.get_task(task.task_id)
        assert ended.final_answer == f"it is {PRODUCT}"
        assert ended.stop_reason == tasks_pb2.STOP_REASON_FINAL_ANSWER


async def test_a_task_parked_on_a_server_without_redis_ends_named_when_it_restarts(
    tmp_path: Path,
) -> None:
    """The in-process live store dies with its process: a task that waited there ends
    FAILED with SERVER_RESTARTED at the next start (from the SQLite history), never
    left waiting for ever; its waits and checkpoint are gone."""
    async with FakeOpenAIServer(APPROVAL_SCRIPT) as llm:
        settings = settings_in(tmp_path, **QUIET, **model_settings(llm), **APPROVE)
        async with running_server(settings) as first, first.client(timeout=10) as client:
            task_id = (await client.start_task("multiply for me", mode=FC)).task_id
            await until(lambda: _status_is(client, task_id, INPUT), 10, "the approval")
        async with running_server(settings) as second, second.client(timeout=10) as client:
            ended = await client.get_task(task_id)
            assert ended.status == tasks_pb2.TASK_STATUS_FAILED
            assert ended.error.reason == "SERVER_RESTARTED"
            assert "restarted while this task waited" in ended.error.message
            assert await second.server.durable.inbox.waits.of_task(task_id) == []
            assert await second.server.durable.checkpoints.load("default", task_id) is None
            with pytest.raises(client_errors.TaskAlreadyTerminalError):
                await client.cancel_task(task_id)


ASKER = """\
id: asker
description: Asks which quarter, then answers
instructions: You are the asker.
mode: function_calling
tools: []
ask_user: true
fresh_start: true
"""
PARENT = """\
id: parent
description: Delegates two parts
instructions: You are the parent.
mode: function_calling
tools: []
delegates: [asker]
"""


async def test_a_parent_waiting_for_room_and_a_childs_question_parks_without_spinning(
    tmp_path: Path,
) -> None:
    """One child at a time (AGENTD_MAX_PARALLEL_DELEGATIONS=1): of three delegations, two
    wait for room while the child at work asks a person; the parent parks for them and
    relays the question, never waking itself over and over; each answer lets the next
    child start."""
    where = tmp_path / "agents"
    where.mkdir()
    (where / "asker.yaml").write_text(ASKER)
    (where / "parent.yaml").write_text(PARENT)
    parts = ("part one", "part two", "part three")
    replies: list[dict[str, Any]] = [
        {"match": "Q3: 42", "text": "parent: all done"},
        {"match": "Q3", "text": "Q3: 42", "repeat": -1},
        {"match": "You are the asker", "repeat": -1, "tool_calls": [
            {"name": "ask_user", "arguments": {"question": "Which quarter?"}}]},
        {"match": "You are the parent", "tool_calls": [
            {"name": "agent_asker", "arguments": {"task": p}} for p in parts]},
    ]  # fmt: skip
    settings = {"agents_dir": where, "max_parallel_delegations": 1, "critic_policy": "off"}
    async with harness(tmp_path, replies, **settings) as h:
        parks = count_parks(h)
        task_id = await start(h.client, "do all three", agent="parent")
        for answered in range(3):
            await until(lambda: _status_is(h.client, task_id, INPUT), 10, "a relayed question")
            await until(lambda: _true(task_id not in h.server.engine._runner.running), 10, "a park")
            before = parks.get(task_id, 0)
            await asyncio.sleep(1.0)  # parked: it does not wake itself meanwhile
            assert parks.get(task_id, 0) == before
            task = await h.client.get_task(task_id)
            children = [await h.client.get_task(c.task_id) for c in task.children]
            assert len(children) == answered + 1  # one at a time
            (asking,) = [c for c in children if c.status == INPUT]
            async for event in h.client.stream_task_events(asking.task_id):
                if event.WhichOneof("payload") == "input_requested":
                    request_id = event.input_requested.request_id
                    break
            await h.client.provide_input(asking.task_id, request_id, "Q3")
            child_id = asking.task_id
            await until(lambda: _status_is(h.client, child_id, DONE), 10, "the child")  # noqa: B023
        await until(lambda: _status_is(h.client, task_id, DONE), 20, "the parent to complete")
        assert (await h.client.get_task(task_id)).final_answer == "parent: all done"
