"""ListTasks through the real server: newest first, filters, paging, bad tokens."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import pytest

from agentd.v1 import tasks_pb2
from agentd_client import errors as client_errors
from tests.integration.harness import harness

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING


async def test_pages_filters_and_tokens(tmp_path: Path) -> None:
    replies = [{"text": "ok", "repeat": 4}, {"error": {"status": 400, "message": "no"}}]
    async with harness(tmp_path, replies) as h:
        ids = []
        for i in range(5):
            events = await h.run(f"task number {i}", mode=FC)
            ids.append(events[0].task_id)
        first = await h.client.list_tasks(page_size=2)
        assert [t.task_id for t in first.tasks] == [ids[4], ids[3]]
        assert first.next_page_token
        second = await h.client.list_tasks(page_size=2, page_token=first.next_page_token)
        assert [t.task_id for t in second.tasks] == [ids[2], ids[1]]
        last = await h.client.list_tasks(page_size=2, page_token=second.next_page_token)
        assert [t.task_id for t in last.tasks] == [ids[0]]
        assert last.next_page_token == ""
        failed = await h.client.list_tasks(statuses=[tasks_pb2.TASK_STATUS_FAILED])
        assert [t.task_id for t in failed.tasks] == [ids[4]]
        assert failed.tasks[0].error.reason == "LLM_UNAVAILABLE"
        everything = await h.client.list_tasks()
        assert len(everything.tasks) == 5
        assert everything.tasks[0].task == "task number 4"


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"page_size": 201}, "page_size"),
        ({"page_size": -1}, "page_size"),
        ({"page_token": "not-a-token"}, "page_token"),
        ({"page_token": "eyJjIjogMX0"}, "page_token"),
        ({"statuses": [99]}, "statuses[0]"),
    ],
)
async def test_bad_list_requests(tmp_path: Path, options: dict[str, object], field: str) -> None:
    async with harness(tmp_path, []) as h:
        with pytest.raises(client_errors.InvalidArgumentError) as info:
            await h.client.list_tasks(**options)  # type: ignore[arg-type]
        assert info.value.code is grpc.StatusCode.INVALID_ARGUMENT
        assert [v.field for v in info.value.field_violations] == [field]


async def test_running_tasks_show_their_live_state(tmp_path: Path) -> None:
    async with harness(tmp_path, [{"delay_seconds": 1.5, "text": "slow"}]) as h:
        stream = h.client.execute("slow one", mode=FC)
        first = await anext(stream)
        await anext(stream)  # running
        listed = await h.client.list_tasks(statuses=[tasks_pb2.TASK_STATUS_RUNNING])
        assert [t.task_id for t in listed.tasks] == [first.task_id]
        assert listed.tasks[0].status == tasks_pb2.TASK_STATUS_RUNNING
        _ = [e async for e in stream]


async def test_a_queued_task_is_listed_by_the_status_its_last_event_announced(
    tmp_path: Path,
) -> None:
    """A task that waited for a slot keeps its history row of then (PENDING) while it
    runs: the filter goes by its live state, so it is listed as running, not pending."""
    replies = [{"delay_seconds": 1.0, "text": "first"}, {"delay_seconds": 1.0, "text": "next"}]
    async with harness(tmp_path, replies, max_running_tasks=1, max_queued_tasks=1) as h:
        first = h.client.execute("first", mode=FC)
        first_id = (await anext(first)).task_id
        second = h.client.execute("second", mode=FC)
        second_id = (await anext(second)).task_id  # PENDING: queued behind the first
        for _ in range(100):  # recorded as it starts to wait, just after its first event
            pending = await h.client.list_tasks(statuses=[tasks_pb2.TASK_STATUS_PENDING])
            if pending.tasks:
                break
            await asyncio.sleep(0.01)
        assert [t.task_id for t in pending.tasks] == [second_id]
        _ = [e async for e in first]
        async for event in second:
            if event.status_changed.current == tasks_pb2.TASK_STATUS_RUNNING:
                break
        running = await h.client.list_tasks(statuses=[tasks_pb2.TASK_STATUS_RUNNING])
        assert [t.task_id for t in running.tasks] == [second_id]
        assert running.tasks[0].status == tasks_pb2.TASK_STATUS_RUNNING
        assert not (await h.client.list_tasks(statuses=[tasks_pb2.TASK_STATUS_PENDING])).tasks
        _ = [e async for e in second]
        done = await h.client.list_tasks(statuses=[tasks_pb2.TASK_STATUS_COMPLETED])
        assert [t.task_id for t in done.tasks] == [second_id, first_id]


async def test_filters_by_agent_and_conversation(tmp_path: Path) -> None:
    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "support.yaml").write_text("id: support\nversion: 2\ninstructions: Help.\n")
    async with harness(tmp_path, [{"text": "ok", "repeat": -1}], agents_dir=agents) as h:
        chat = await h.client.create_conversation("filters")
        in_chat = (await h.run("first turn", mode=FC, conversation_id=chat.conversation_id))[0]
        as_support = (await h.run("as support", mode=FC, agent="support"))[0]
        both = await h.run(
            "support in chat", mode=FC, agent="support@2", conversation_id=chat.conversation_id
        )
        plain = (await h.run("on its own", mode=FC))[0]

        async def ids(**filters: str) -> list[str]:
            page = await h.client.list_tasks(**filters)  # type: ignore[arg-type]
            return [t.task_id for t in page.tasks]

        assert await ids(agent="support") == [both[0].task_id, as_support.task_id]
        assert await ids(agent="support@2") == [both[0].task_id, as_support.task_id]
        assert await ids(agent="support@1") == []
        assert await ids(conversation_id=chat.conversation_id) == [
            both[0].task_id,
            in_chat.task_id,
        ]
        assert await ids(agent="support", conversation_id=chat.conversation_id) == [both[0].task_id]
        assert plain.task_id in await ids()
        first = await h.client.list_tasks(agent="support", page_size=1)
        rest = await h.client.list_tasks(agent="support", page_token=first.next_page_token)
        assert [t.task_id for t in [*first.tasks, *rest.tasks]] == [
            both[0].task_id,
            as_support.task_id,
        ]


@pytest.mark.parametrize(
    ("filters", "fields"),
    [
        ({"agent": "Not An Id"}, ["agent"]),
        ({"agent": "support@0"}, ["agent"]),
        ({"conversation_id": "conv_nope"}, ["conversation_id"]),
        ({"agent": "a@b", "conversation_id": "x"}, ["agent", "conversation_id"]),
    ],
)
async def test_malformed_agent_and_conversation_filters(
    tmp_path: Path, filters: dict[str, str], fields: list[str]
) -> None:
    async with harness(tmp_path, []) as h:
        with pytest.raises(client_errors.InvalidArgumentError) as info:
            await h.client.list_tasks(**filters)  # type: ignore[arg-type]
        assert [v.field for v in info.value.field_violations] == fields
