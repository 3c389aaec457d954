"""A task's spend limit through Execute, its model priced by the providers file: the
call that reaches the limit is its last (STOP_REASON_SPEND_LIMIT, the detail naming the
limit and the currency); a child is given what is left of its parent's limit and stops
at its share, its spend counted in its parent's."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from agent.llm.fakes.server import FakeOpenAIServer
from agentd.v1 import tasks_pb2
from tests.integration.harness import Harness, model_settings, of_kind
from tests.servers import QUIET, running_server, settings_in

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
PRICE = {"input": 1_000_000, "output": 1_000_000}  # a micro-unit a token
COSTS_1000 = {"prompt_tokens": 1_000, "completion_tokens": 0}
ADD = {"tool_calls": [{"name": "calculator", "arguments": {"expression": "1+1"}}]}


@asynccontextmanager
async def priced(
    tmp_path: Path, replies: list[dict[str, Any]], **settings: Any
) -> AsyncIterator[Harness]:
    """A server on the scripted model, which the providers file prices (its endpoint as
    the `default` provider)."""
    async with FakeOpenAIServer(replies) as llm:
        models = [{"name": "fake-model", "prices": PRICE}]
        default = {"base_url": llm.base_url, "models": models}
        path = tmp_path / "providers.json"
        path.write_text(json.dumps({"providers": {"default": default}}))
        config = settings_in(
            tmp_path, **{**QUIET, **model_settings(llm)}, providers_file=path, **settings
        )
        async with running_server(config) as running:
            yield Harness(llm, running, running.client(timeout=20))


async def test_the_call_that_reaches_the_limit_is_the_last(tmp_path: Path) -> None:
    replies = [{**ADD, "usage": COSTS_1000, "repeat": -1}]
    async with priced(tmp_path, replies) as h:
        events = await h.run("add forever", mode=FC, spend_limit=2_500)
        task = await h.client.get_task(events[0].task_id)

        assert len(h.llm.requests) == 3  # 1,000, 2,000, then 3,000: past 2,500
        assert task.usage.cost_micros == 3_000
        assert task.stop_reason == tasks_pb2.STOP_REASON_SPEND_LIMIT
        assert task.stop_detail == (
            "the spend limit of 2500 micro-units of USD is reached (3000 spent)"
        )


LEAD = "id: lead\ninstructions: You are the lead.\nmode: function_calling\ndelegates: [helper]\n"
HELPER = "id: helper\ninstructions: You are the helper.\nmode: function_calling\n"


def agents(folder: Path) -> Path:
    where = folder / "agents"
    where.mkdir()
    (where / "lead.yaml").write_text(LEAD)
    (where / "helper.yaml").write_text(HELPER + "tools: [calculator]\n")
    return where


async def test_a_child_gets_a_share_of_what_is_left_and_its_spend_is_the_parents(
    tmp_path: Path,
) -> None:
    delegate: dict[str, Any] = {"name": "agent_helper", "arguments": {"task": "add"}}
    replies: list[dict[str, Any]] = [
        {"match": "You are the helper", **ADD, "usage": COSTS_1000, "repeat": -1},
        {"match": "You are the lead", "tool_calls": [delegate], "usage": COSTS_1000},
        {"match": "You are the lead", "text": "done", "usage": COSTS_1000},
    ]
    folder = agents(tmp_path)
    async with priced(tmp_path, replies, agents_dir=folder) as h:
        events = await h.run("delegate", agent="lead", spend_limit=5_000)
        lead = await h.client.get_task(events[0].task_id)
        [started] = of_kind(events, "subtask_started")
        child = await h.client.get_task(started.child_task_id)

        # 4,000 left after the lead's first call: the child's share is half (the other
        # half stays the lead's), 2,000, reached after its second call.
        assert child.stop_reason == tasks_pb2.STOP_REASON_SPEND_LIMIT
        assert child.usage.cost_micros == 2_000
        assert "spend limit of 2000 micro-units" in child.stop_detail
        assert lead.stop_reason == tasks_pb2.STOP_REASON_FINAL_ANSWER
        assert lead.usage.cost_micros == 1_000 + 2_000 + 1_000
