"""Kill -9 of the replica running a parent with three children in flight (Redis +
PostgreSQL, two `agentd serve` processes): the other replica takes the cut-off children
over, and the parent (parked while they work) is woken there by their ends; it
re-attaches to its children (the finished one is not run again) and completes; every
stream reads to its end with no sequence lost or repeated."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent.llm.fakes.server import FakeOpenAIServer
from agentd_client.client import AgentClient
from tests.helpers import server_process
from tests.integration.harness import assert_well_formed, final, of_kind
from tests.integration.test_takeover import kill, read_until, replica_env, wait_for

pytestmark = [pytest.mark.redis, pytest.mark.postgres]

LEAD = (
    "id: lead\ninstructions: You lead.\nmode: function_calling\ntools: []\n"
    "delegates: [sub-a, sub-b, sub-c]\n"
)


def sub(name: str) -> str:
    return f"id: {name}\ninstructions: You are {name}.\nmode: function_calling\ntools: []\n"


def delegate(agent: str) -> dict[str, Any]:
    return {"name": f"agent_{agent}", "arguments": {"task": f"part for {agent}"}}


async def test_killed_with_three_children_in_flight_the_other_replica_finishes_the_tree(
    tmp_path: Path, prefix: str, database: str
) -> None:
    folder = tmp_path / "agents"
    folder.mkdir()
    for name, text in {"lead": LEAD, "sub-a": sub("sub-a"), "sub-b": sub("sub-b"),
                       "sub-c": sub("sub-c")}.items():  # fmt: skip
        (folder / f"{name}.yaml").write_text(text)
    replies: list[dict[str, Any]] = [
        {
            "match": "You lead",
            "tool_calls": [delegate("sub-a"), delegate("sub-b"), delegate("sub-c")],
        },
        {"match": "You are sub-a", "text": "A done"},
        {"match": "You are sub-b", "delay_seconds": 20, "text": "never: its process is killed"},
        {"match": "You are sub-c", "delay_seconds": 20, "text": "never: its process is killed"},
        {"match": "You are sub-b", "text": "B done"},
        {"match": "You are sub-c", "text": "C done"},
        {"match": "C done", "text": "Lead: A, B and C done"},
    ]
    async with FakeOpenAIServer(replies) as llm:
        env = replica_env(llm.base_url, prefix, database, AGENTD_AGENTS_DIR=str(folder))
        with (
            server_process(tmp_path / "a", env) as first,
            server_process(tmp_path / "b", env) as second,
        ):
            async with AgentClient(first.address) as a, AgentClient(second.address) as b:
                stream = a.execute("split the work", agent="lead")
                head = await read_until(stream, lambda e: e.subtask_finished.answer == "A done")
                await wait_for(lambda: len(llm.requests) == 4, 10)  # b and c ask their model
                parent_id = head[0].task_id
                kill(first)
                rest = [e async for e in b.stream_task_events(parent_id, head[-1].sequence)]
                every = head + rest

                assert_well_formed(every)
                assert final(every).text == "Lead: A, B and C done"
                # Parked while its children work, the parent is woken by their ends, not
                # taken over: resumed once only if the kill caught it awake (woken by A's end).
                assert len(of_kind(every, "resumed")) <= 1
                started = of_kind(every, "subtask_started")
                assert sorted(s.agent for s in started) == ["sub-a@1", "sub-b@1", "sub-c@1"]
                finished = {f.agent: f.answer for f in of_kind(every, "subtask_finished")}
                assert finished == {"sub-a@1": "A done", "sub-b@1": "B done",
                                    "sub-c@1": "C done"}  # fmt: skip
                assert len(of_kind(every, "subtask_finished")) == 3  # each reported once
                children = (await b.list_tasks(parent_task_id=parent_id)).tasks
                assert sorted(c.task_id for c in children) == sorted(
                    s.child_task_id for s in started
                )  # re-attached: no child started twice
                asked = [str(r["messages"]) for r in llm.requests]
                assert sum("You are sub-a" in r for r in asked) == 1  # a was not run again
                assert sum("You are sub-b" in r for r in asked) == 2  # cut off once
                resumed = {}
                for child in started:
                    events = [e async for e in b.stream_task_events(child.child_task_id)]
                    assert_well_formed(events)
                    resumed[child.agent] = len(of_kind(events, "resumed"))
                assert resumed == {"sub-a@1": 0, "sub-b@1": 1, "sub-c@1": 1}  # the cut-off ones
                parent = await b.get_task(parent_id)
                assert parent.last_sequence == every[-1].sequence
                assert sorted(c.agent for c in parent.children) == [
                    "sub-a@1", "sub-b@1", "sub-c@1"
                ]  # fmt: skip
                again = [e.sequence async for e in b.stream_task_events(parent_id)]
                assert again == [e.sequence for e in every]
                llm.assert_complete()
