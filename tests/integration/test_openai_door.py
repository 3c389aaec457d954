"""The OpenAI door with the official `openai` client, unchanged but for its base URL and
key, on the HTTP address of two agentd servers sharing Redis and PostgreSQL (a scripted
model answers; auth on: the client's key is an agentd API key of an approver):
models.list; responses.create plain, streamed and in the background (then retrieved); a
stream cut mid-way and resumed with `starting_after` on the other replica yields every
event once, in order; `previous_response_id` across two turns; an approval answered by an
`mcp_approval_response` on the other replica, an agent's question answered by a message;
a background response cancelled; chat.completions.create(stream=True); a malformed body
is 400 naming the field, an unknown agent 404, a body over the limit 413 with no task
made, a wrong key 401; every call audited."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from openai.types.responses import (
    ResponseCompletedEvent,
    ResponseCreatedEvent,
    ResponseOutputItemDoneEvent,
    ResponseStreamEvent,
)
from openai.types.responses.response_output_item import McpCall
from sqlalchemy import select

from agent.llm.fakes.server import FakeOpenAIServer
from records.audit import RpcRecord
from records.keys import new_key
from records.tasks import TaskQuery
from server.app import AgentdServer
from stores.audit.sql import rpc_from_row
from stores.sql.schema import rpc_audit
from tests.contract.conftest import REDIS_URL
from tests.integration.harness import model_settings
from tests.integration.openai.serving import free_port
from tests.servers import QUIET, running_server, settings_in

pytestmark = [pytest.mark.redis, pytest.mark.postgres]

LEAD = "id: lead\ndescription: Leads.\nmode: function_calling\ntools: [calculator, current_time]\n"
MODEL = "agent:lead"
ASKING = "id: asking\nmode: function_calling\nask_user: true\ntools: [calculator]\n"
REPLIES: list[dict[str, Any]] = [
    {"text": "Hi there.", "match": "Say hi"},
    {"text": "Streamed answer, in parts.", "chunks": 3, "match": "Stream please"},
    {"text": "Done in the background.", "match": "In the background"},
    {"text": "Helped, in parts.", "chunks": 3, "match": "Stream helper"},
    {
        "tool_calls": [{"name": "calculator", "arguments": {"expression": "6*7"}}],
        "match": "Compute on A",
    },
    {"hold": "resumed", "text": "The answer is 42.", "match": "Compute on A"},
    {"text": "Hello Ada.", "match": "My name is Ada"},
    {"text": "Your name is Ada.", "match": "What is my name?"},
    {"tool_calls": [{"name": "current_time", "arguments": {}}], "match": "What time is it?"},
    {"text": "It is late.", "match": "What time is it?"},
    {"text": "Chatting, streamed.", "chunks": 2, "match": "Chat with me"},
    {"hold": "cancelled", "text": "never sent: cancelled", "match": "Cancel me"},
    {
        "tool_calls": [{"name": "ask_user", "arguments": {"question": "Which account?"}}],
        "match": "Who owes?",
    },
    {"text": "Account 7 owes 42.", "match": "Who owes?"},
]


@dataclass
class Replicas:
    a: openai.AsyncOpenAI
    b: openai.AsyncOpenAI
    llm: FakeOpenAIServer
    server: AgentdServer
    url: str
    key: str

    async def audited(self, method: str) -> list[RpcRecord]:
        """The RPC audit records of `method` (`/openai.v1/<call>`), once there are some."""
        for _ in range(250):
            async with self.server.durable.database.engine.connect() as connection:
                rows = (await connection.execute(select(rpc_audit).order_by("id"))).mappings()
                found = [r for r in map(rpc_from_row, rows) if r.method == method]
            if found:
                return found
            await asyncio.sleep(0.02)
        return []


@asynccontextmanager
async def replicas(tmp_path: Path, prefix: str, database: str) -> AsyncIterator[Replicas]:
    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "lead.yaml").write_text(LEAD)
    (agents / "asking.yaml").write_text(ASKING)
    async with AsyncExitStack() as stack:
        llm = await stack.enter_async_context(FakeOpenAIServer(REPLIES))
        clients = []
        servers = []
        plaintext = ""
        for name in ("a", "b"):
            port = free_port()
            settings = settings_in(
                tmp_path / name,
                **{**QUIET, "auth": "on"},
                **model_settings(llm),
                redis_url=REDIS_URL,
                redis_prefix=prefix,
                database_url=database,
                agents_dir=agents,
                critic_policy="off",
                approval_tools=["current_time"],
                grace_period_seconds=1.0,
                http_address=f"127.0.0.1:{port}",
                http_doors=["openai"],
                http_max_body_bytes=64 * 1024,
                heartbeat_seconds=0.2,
            )
            running = await stack.enter_async_context(running_server(settings))
            servers.append(running.server)
            if not plaintext:  # one key, in the database both replicas share
                key, plaintext = new_key("acme", "alice", ("approver",))
                await running.server.durable.api_keys.add(key)
            url = f"http://127.0.0.1:{port}/v1"
            client = openai.AsyncOpenAI(base_url=url, api_key=plaintext)
            stack.push_async_callback(client.close)
            clients.append(client)
        yield Replicas(
            clients[0], clients[1], llm, servers[0], str(clients[0].base_url).rstrip("/"), plaintext
        )


async def test_the_official_client_on_two_replicas(
    tmp_path: Path, prefix: str, database: str
) -> None:
    async with replicas(tmp_path, prefix, database) as r:
        models = await r.a.models.list()
        assert sorted([m.id async for m in models]) == ["agent:asking", MODEL]

        plain = await r.a.responses.create(model=MODEL, input="Say hi")
        assert (plain.status, plain.output_text) == ("completed", "Hi there.")
        assert plain.id.startswith("resp_task_")

        stream = await r.a.responses.create(model=MODEL, input="Stream please", stream=True)
        events = [e async for e in stream]
        kinds = [e.type for e in events]
        assert kinds[:2] == ["response.created", "response.in_progress"]
        assert kinds[-1] == "response.completed"
        assert "response.output_text.done" in kinds
        assert kinds.count("response.output_text.delta") >= 1
        numbers = [e.sequence_number for e in events]
        assert numbers == sorted(set(numbers))
        done = events[-1].response  # type: ignore[union-attr]
        assert done.output_text == "Streamed answer, in parts."

        async with r.a.responses.stream(model=MODEL, input="Stream helper") as helper:
            helped = await helper.get_final_response()
        assert helped.output_text == "Helped, in parts."

        background = await r.a.responses.create(
            model=MODEL, input="In the background", background=True
        )
        assert background.status in ("queued", "in_progress")
        for _ in range(200):
            polled = await r.b.responses.retrieve(background.id)  # any replica answers
            if polled.status not in ("queued", "in_progress"):
                break
            await asyncio.sleep(0.05)
        assert (polled.status, polled.output_text) == ("completed", "Done in the background.")
        held = await r.a.responses.create(model=MODEL, input="Cancel me", background=True)
        cancelled = await r.b.responses.cancel(held.id)  # on the other replica
        assert cancelled.status == "cancelled"
        assert (await r.a.responses.retrieve(held.id)).status == "cancelled"
        r.llm.release("cancelled")
        items = await r.b.responses.input_items.list(background.id)
        assert [i.model_dump(exclude_none=True)["content"] for i in items.data] == [
            [{"type": "input_text", "text": "In the background"}]
        ]


async def test_a_stream_cut_on_one_replica_resumes_on_the_other(
    tmp_path: Path, prefix: str, database: str
) -> None:
    async with replicas(tmp_path, prefix, database) as r:
        stream = await r.a.responses.create(model=MODEL, input="Compute on A", stream=True)
        head: list[ResponseStreamEvent] = []
        async for event in stream:
            head.append(event)
            if isinstance(event, ResponseOutputItemDoneEvent) and event.item.type == "mcp_call":
                break
        await stream.close()  # cut mid-way: the task goes on, its model call held
        created, cut = head[0], head[-1]
        assert isinstance(created, ResponseCreatedEvent)
        assert isinstance(cut, ResponseOutputItemDoneEvent)
        call = cut.item
        assert isinstance(call, McpCall)
        assert (call.server_label, call.name, call.status) == ("agentd", "calculator", "completed")
        assert call.output == "42"
        # While the model is held the task is quiet: the stream says it lives (SSE comments).
        rid = created.response.id
        quiet = f"{r.url}/responses/{rid}?stream=true&starting_after={cut.sequence_number}"
        async with (
            httpx.AsyncClient(headers={"authorization": f"Bearer {r.key}"}) as raw,
            raw.stream("GET", quiet) as listening,
        ):
            lines = listening.aiter_lines()
            assert await asyncio.wait_for(anext(lines), 5) == ": ping"
        r.llm.release("resumed")
        after = cut.sequence_number
        resumed = await r.b.responses.retrieve(rid, stream=True, starting_after=after)
        rest = [e async for e in resumed]
        whole = [e async for e in await r.b.responses.retrieve(rid, stream=True)]
    seen = [(e.sequence_number, e.type) for e in head + rest]
    assert seen == [(e.sequence_number, e.type) for e in whole]  # every event once, in order
    assert [n for n, _ in seen] == sorted({n for n, _ in seen})
    assert rest[0].sequence_number > after
    last = rest[-1]
    assert isinstance(last, ResponseCompletedEvent)
    assert last.response.output_text == "The answer is 42."
    assert not any(e.type.startswith("response.function_call") for e in whole)


async def test_turns_approvals_chat_and_errors(tmp_path: Path, prefix: str, database: str) -> None:
    async with replicas(tmp_path, prefix, database) as r:
        one = await r.a.responses.create(model=MODEL, input="My name is Ada")
        two = await r.b.responses.create(
            model=MODEL, input="What is my name?", previous_response_id=one.id
        )
        assert two.output_text == "Your name is Ada."
        assert two.conversation is not None
        assert one.conversation is not None
        assert two.conversation.id == one.conversation.id
        said = [m.get("content") for m in r.llm.requests[-1]["messages"]]
        assert "My name is Ada" in said
        assert "Hello Ada." in said

        asked = await r.a.responses.create(model=MODEL, input="What time is it?")
        assert asked.status == "incomplete"
        request = [o for o in asked.output if o.type == "mcp_approval_request"]
        assert [(o.server_label, o.name) for o in request] == [("agentd", "current_time")]
        decision: Any = {
            "type": "mcp_approval_response",
            "approval_request_id": request[0].id,
            "approve": True,
        }
        async with r.b.responses.stream(  # the SDK's helper: it needs response.created first
            model=MODEL, previous_response_id=asked.id, input=[decision]
        ) as moved_on:
            answered = await moved_on.get_final_response()
        assert answered.id == asked.id
        assert (answered.status, answered.output_text) == ("completed", "It is late.")
        calls = [o for o in answered.output if o.type == "mcp_call"]
        assert [(c.name, c.status) for c in calls] == [("current_time", "completed")]

        question = await r.a.responses.create(model="agent:asking", input="Who owes?")
        assert question.status == "incomplete"
        assert question.output_text == "Which account?"
        told = await r.b.responses.create(
            model="agent:asking", input="Account 7", previous_response_id=question.id
        )
        assert (told.id, told.status) == (question.id, "completed")
        assert told.output_text.endswith("Account 7 owes 42.")

        # A body over the address's limit is refused before the door: no task, no turn.
        query = TaskQuery(tenant="acme", owner="alice", limit=200)
        before = len((await r.server.engine.list_tasks(query)).items)
        with pytest.raises(openai.APIStatusError) as large:
            await r.a.responses.create(model=MODEL, input="x" * 100_000)
        assert large.value.status_code == 413
        assert len((await r.server.engine.list_tasks(query)).items) == before

        chunks = await r.a.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "Chat with me"}], stream=True
        )
        got = [c async for c in chunks]
        text = "".join(c.choices[0].delta.content or "" for c in got if c.choices)
        assert text == "Chatting, streamed."
        assert all(not c.choices or c.choices[0].delta.tool_calls is None for c in got)
        assert got[-1].choices[0].finish_reason == "stop"

        with pytest.raises(openai.BadRequestError) as bad:
            await r.a.responses.create(model="gpt-4o", input="x")
        assert (bad.value.status_code, bad.value.param) == (400, "model")
        no_content: Any = {"type": "message", "role": "user"}
        with pytest.raises(openai.BadRequestError) as bad:
            await r.a.responses.create(model=MODEL, input=[no_content])
        assert bad.value.param == "input[0].content"
        with pytest.raises(openai.NotFoundError):
            await r.a.responses.create(model="agent:nobody", input="x")
        body = json.dumps({"model": MODEL, "messages": "hi"})
        with pytest.raises(openai.BadRequestError) as bad:
            await r.a.post("/chat/completions", cast_to=dict, body=json.loads(body))
        assert bad.value.param == "messages"
        stranger = openai.AsyncOpenAI(base_url=r.url, api_key="agd_not-a-key", max_retries=0)
        with pytest.raises(openai.AuthenticationError):
            await stranger.models.list()
        await stranger.close()

        # Every call under the same audit as gRPC: one record each, naming its task.
        created = await r.audited("/openai.v1/CreateResponse")
        assert {(c.principal_id, c.tenant) for c in created} == {("alice", "acme")}
        assert {c.code for c in created} == {"OK", "INVALID_ARGUMENT", "NOT_FOUND"}
        assert one.id.removeprefix("resp_") in {c.task_id for c in created}
