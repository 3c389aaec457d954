"""Durable traces on a running server, on SQLite and on the machine's PostgreSQL: a task
run with the fake model (the real `openai` client over HTTP) that calls tools is read
back whole with GetTaskTrace after its live events expired (AGENTD_RETENTION_SECONDS of a
second): each model request's messages, each reply, each tool result; a secret a tool
returned is redacted in the trace; and a trace grows linearly with a task's iterations,
counted in the SQL tables' rows and bytes for tasks of 5, 10 and 20 iterations."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from agentd.v1 import tasks_pb2, traces_pb2
from agentd_client.client import AgentClient
from core.errors import TaskNotFoundError
from stores.sql.database import Database
from stores.traces.tables import trace_entries, trace_heads, trace_messages
from tests.integration.harness import Harness, harness

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
SECRET = "sk-" + "Zq9Xw8Vu7Ts6Rp5On4Ml3Kj2"
BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


def calls(n: int) -> list[dict[str, Any]]:
    """`n` iterations, each a calculator call with its own expression, then an answer."""
    replies: list[dict[str, Any]] = [
        {"tool_calls": [{"name": "calculator", "arguments": {"expression": f"{i} * 7 + 1"}}]}
        for i in range(n)
    ]
    return [*replies, {"text": f"done after {n} calculations"}]


async def whole_trace(client: AgentClient, task_id: str) -> list[traces_pb2.GetTaskTraceResponse]:
    pages, token = [], ""
    while True:
        page = await client.get_task_trace(task_id, page_size=3, page_token=token)
        pages.append(page)
        token = page.next_page_token
        if not token:
            return pages


async def events_expired(h: Harness, task_id: str) -> None:
    """Wait until the live store let the task and its events go (AGENTD_RETENTION_SECONDS)."""
    for _ in range(100):
        try:
            await h.server.tasks.get("default", task_id)
        except TaskNotFoundError:
            return
        await asyncio.sleep(0.1)
    raise AssertionError("the task's live state and events never expired")


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'agentd.db'}"
    return str(request.getfixturevalue("database"))


async def test_a_task_past_its_live_retention_returns_its_whole_trace_redacted(
    tmp_path: Path, database_url: str
) -> None:
    (tmp_path / "workspace").mkdir()
    (tmp_path / "workspace" / "config.txt").write_text(f"region=eu\napi_key={SECRET}\n")
    read = {"name": "read_file", "arguments": {"path": "config.txt"}}
    add = {"name": "calculator", "arguments": {"expression": "6 * 7"}}
    replies = [{"tool_calls": [read]}, {"tool_calls": [add]}, {"text": "Region eu; 42.\nDone."}]
    async with harness(tmp_path, replies, retention_seconds=1, database_url=database_url) as h:
        events = await h.run("read the config", mode=FC)
        task_id = events[0].task_id
        await events_expired(h, task_id)

        pages = await whole_trace(h.client, task_id)

    entries = [e for p in pages for e in p.entries]
    messages = {m.message_id: m for p in pages for m in p.messages}
    assert [e.WhichOneof("detail") for e in entries] == [
        "model_call",
        "tool_call",
        "model_call",
        "tool_call",
        "model_call",
    ]
    assert pages[0].task == "read the config"
    models = [e.model_call for e in entries if e.HasField("model_call")]
    assert [m.model for m in models] == ["fake-model"] * 3
    assert models[-1].reply_text == "Region eu; 42.\nDone."
    assert [c.name for c in models[0].reply_tool_calls] == ["read_file"]
    assert all(m.usage.total_tokens > 0 and m.latency_seconds > 0 for m in models)
    last_request = [messages[i] for i in models[-1].message_ids]  # every id is kept
    assert [m.role for m in last_request][-4:] == ["assistant", "tool", "assistant", "tool"]
    assert any(m.content == "read the config" for m in last_request)
    tools = [e.tool_call for e in entries if e.HasField("tool_call")]
    assert [t.tool for t in tools] == ["read_file", "calculator"]
    assert "region=eu" in tools[0].result_text
    assert "[REDACTED]" in tools[0].result_text
    assert "42" in tools[1].result_text
    kept = json.dumps([str(p) for p in pages])
    assert SECRET not in kept  # nowhere: not the result, its data, nor the tool message


async def test_a_trace_grows_linearly_with_the_iterations(
    tmp_path: Path, database_url: str
) -> None:
    sizes: dict[int, tuple[int, int, int]] = {}
    replies = [*calls(5), *calls(10), *calls(20)]
    async with harness(tmp_path, replies, database_url=database_url) as h:
        for n in (5, 10, 20):
            events = await h.run(f"calculate {n} times", mode=FC, max_iterations=25)
            assert events[-1].status_changed.current == tasks_pb2.TASK_STATUS_COMPLETED
            sizes[n] = await counted(h, events[0].task_id)

    entries, messages, weight = ({n: sizes[n][i] for n in sizes} for i in range(3))
    assert [entries[n] for n in (5, 10, 20)] == [11, 21, 41]  # a model call and a tool call each
    # Each iteration adds its assistant message and its tool message, each kept once.
    assert messages[10] - messages[5] == 10
    assert messages[20] - messages[10] == 20
    growth = (weight[10] - weight[5], weight[20] - weight[10])
    assert growth[1] <= 2.3 * growth[0], f"bytes grew {growth}: not linear"
    assert growth[1] >= 1.7 * growth[0], f"bytes grew {growth}: not linear"


async def counted(h: Harness, task_id: str) -> tuple[int, int, int]:
    """The task's trace in the SQL tables: entry rows, message rows, and bytes stored."""
    database: Database = h.server.durable.database
    async with database.engine.connect() as connection:
        entries = await connection.scalar(
            select(func.count()).where(trace_entries.c.task_id == task_id)
        )
        messages = await connection.scalar(
            select(func.count()).where(trace_messages.c.task_id == task_id)
        )
        body = await connection.scalar(
            select(func.sum(func.length(trace_entries.c.body))).where(
                trace_entries.c.task_id == task_id
            )
        )
        texts = await connection.scalar(
            select(func.sum(func.length(trace_messages.c.body))).where(
                trace_messages.c.task_id == task_id
            )
        )
        head = await connection.scalar(
            select(trace_heads.c.entries).where(trace_heads.c.task_id == task_id)
        )
    assert head == entries
    return int(entries or 0), int(messages or 0), int(body or 0) + int(texts or 0)
