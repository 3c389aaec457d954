"""The RPC audit log and ListAuditRecords through the real server with auth on."""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path

import grpc
import pytest
from google.protobuf import json_format
from sqlalchemy import event, select
from sqlalchemy.engine import Engine

from agentd.v1 import agent_service_pb2 as pb
from agentd.v1 import tasks_pb2
from agentd_client import errors as client_errors
from agentd_client.client import AgentClient
from records.audit import RpcRecord
from stores.audit.base import RpcAuditSink
from stores.sql import group_commit
from stores.sql.schema import rpc_audit, tool_call_audit
from tests.integration.trust import trusted

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
TRACEPARENT = f"00-{TRACE_ID}-00f067aa0ba902b7-01"


async def test_every_rpc_is_recorded_with_its_outcome(tmp_path: Path) -> None:
    async with trusted(tmp_path, [{"text": "hello"}]) as t:
        alice = await t.client("acme", "alice", metadata=[("traceparent", TRACEPARENT)])
        await t.grant("acme", "principal:alice", "calculator", "read")
        await alice.call_tool("calculator", {"expression": "1+1"})
        with pytest.raises(client_errors.TaskNotFoundError):
            await alice.get_task("task_unknown")
        events = [e async for e in alice.execute("say hello", mode=FC)]
        task_id = events[0].task_id
        async with AgentClient(t.address) as stranger:
            with pytest.raises(client_errors.UnauthenticatedError):
                await stranger.list_tools()
        async with grpc.aio.insecure_channel(t.address) as channel:
            garbage = channel.unary_unary(
                "/agentd.v1.AgentService/GetTask",
                request_serializer=lambda b: b,
                response_deserializer=lambda b: b,
            )
            with pytest.raises(grpc.aio.AioRpcError):
                await garbage(b"\xff\xff\xff", metadata=alice._metadata)
        await alice.health()  # probes are counted in metrics, not audited

        records = await t.rpc_records()
        summary = [(r.principal_id, r.method.rsplit("/", 1)[-1], r.code) for r in records]
        assert summary == [
            ("alice", "CallTool", "OK"),
            ("alice", "GetTask", "NOT_FOUND"),
            ("alice", "Execute", "OK"),
            ("unauthenticated", "ListTools", "UNAUTHENTICATED"),
            ("alice", "GetTask", "INVALID_ARGUMENT"),
        ]
        call_tool, get_task, execute, refused, malformed = records
        assert {r.trace_id for r in (call_tool, get_task, execute)} == {TRACE_ID}
        assert {e.trace_id for e in events} == {TRACE_ID}
        expected = pb.CallToolRequest(tool_name="calculator")
        expected.arguments.update({"expression": "1+1"})
        assert call_tool.request_digest == hashlib.sha256(expected.SerializeToString()).hexdigest()
        assert malformed.request_digest == hashlib.sha256(b"\xff\xff\xff").hexdigest()
        assert (get_task.task_id, execute.task_id) == ("task_unknown", task_id)
        assert refused.tenant == ""
        assert execute.duration_seconds > 0
        assert all(r.tenant == "acme" for r in records if r is not refused)


async def test_list_audit_records_is_for_auditors_of_the_same_tenant(tmp_path: Path) -> None:
    async with trusted(tmp_path, [{"text": "hello"}]) as t:
        alice = await t.client("acme", "alice")
        dana = await t.client("acme", "dana", "auditor")
        eve = await t.client("globex", "eve", "auditor")
        await t.grant("acme", "principal:alice", "calculator", "read")
        for expression in ("1+1", "2+2", "3+3"):
            await alice.call_tool("calculator", {"expression": expression})
        with pytest.raises(client_errors.PermissionDeniedError):
            await alice.call_tool("read_file", {"path": "x"})
        events = [e async for e in alice.execute("say hello", mode=FC)]
        task_id = events[0].task_id

        with pytest.raises(client_errors.PermissionDeniedError, match="auditor"):
            await alice.list_audit_records("tool_call")
        page = await dana.list_audit_records("tool_call", page_size=2)
        assert len(page.records) == 2
        rest = await dana.list_audit_records("tool_call", page_token=page.next_page_token)
        tools = [r.tool_call for r in [*page.records, *rest.records]]
        assert [(c.tool_name, c.outcome) for c in tools] == [
            ("calculator", "ok"),
            ("calculator", "ok"),
            ("calculator", "ok"),
            ("read_file", "denied"),
        ]
        assert rest.next_page_token == ""
        denied = await dana.list_audit_records("tool_call", outcome="denied")
        assert [r.tool_call.rule for r in denied.records] == ["default:deny"]
        mine = await dana.list_audit_records("rpc", principal_id="alice", outcome="OK")
        assert {r.rpc.method.rsplit("/", 1)[-1] for r in mine.records} == {"CallTool", "Execute"}
        of_task = await dana.list_audit_records("rpc", task_id=task_id)
        assert [r.rpc.method.rsplit("/", 1)[-1] for r in of_task.records] == ["Execute"]

        # Another tenant's auditor sees none of it, and acme's task is NOT_FOUND to them,
        # exactly as an unknown id is.
        theirs = await eve.list_audit_records("tool_call")
        assert list(theirs.records) == []
        with pytest.raises(client_errors.TaskNotFoundError) as foreign:
            await eve.list_audit_records("rpc", task_id=task_id)
        with pytest.raises(client_errors.TaskNotFoundError) as unknown:
            await eve.list_audit_records("rpc", task_id="task_000000000000000000000000")
        assert str(foreign.value).replace(task_id, "ID") == str(unknown.value).replace(
            "task_000000000000000000000000", "ID"
        )
        with pytest.raises(client_errors.InvalidArgumentError):
            await dana.list_audit_records("rpc", page_token="forged")
        with pytest.raises(client_errors.InvalidArgumentError):
            await dana.list_audit_records("rpc", page_size=5000)


class SlowSink:
    """Takes its time to store each record, as a loaded database would."""

    def __init__(self, inner: RpcAuditSink) -> None:
        self.inner = inner

    async def write(self, record: RpcRecord) -> None:
        await asyncio.sleep(0.3)
        await self.inner.write(record)


async def test_the_record_is_stored_before_the_caller_hears_back(tmp_path: Path) -> None:
    async with trusted(tmp_path, [{"text": "hello"}]) as t:
        t.server.audit._sink = SlowSink(t.server.audit._sink)
        alice = await t.client("acme", "alice")
        await t.grant("acme", "principal:alice", "calculator", "read")
        await alice.call_tool("calculator", {"expression": "1+1"})
        assert [r.code for r in await t.rpc_records()] == ["OK"]
        with pytest.raises(client_errors.TaskNotFoundError):  # the servicer aborts
            await alice.get_task("task_unknown")
        assert [r.code for r in await t.rpc_records()][-1] == "NOT_FOUND"
        async with AgentClient(t.address) as stranger:  # the auth interceptor aborts
            with pytest.raises(client_errors.UnauthenticatedError):
                await stranger.list_tools()
        assert [r.code for r in await t.rpc_records()][-1] == "UNAUTHENTICATED"
        [e async for e in alice.execute("say hello", mode=FC)]
        assert [r.code for r in await t.rpc_records()][-1] == "OK"
        assert len(await t.rpc_records()) == 4


async def test_credentials_in_tool_arguments_stay_out_of_events_and_audit_records(
    tmp_path: Path,
) -> None:
    secret_key = "agd_0123456789ab_" + "S" * 43
    call = {
        "tool_calls": [
            {
                "name": "http_request",
                "arguments": {
                    "url": "http://127.0.0.1:1/x",
                    "headers": {"Authorization": f"Bearer {secret_key}", "X-Note": secret_key},
                },
            }
        ]
    }
    async with trusted(tmp_path, [call, {"text": "done"}]) as t:
        alice = await t.client("acme", "alice")
        await t.grant("acme", "principal:alice", "http_request", "write")
        events = [e async for e in alice.execute("fetch it", mode=FC)]
        async with grpc.aio.insecure_channel(t.address) as channel:  # reflection: public
            from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

            stub = reflection_pb2_grpc.ServerReflectionStub(channel)
            request = reflection_pb2.ServerReflectionRequest(list_services="")
            [r async for r in stub.ServerReflectionInfo(iter([request]))]
        assert secret_key not in str(events)
        (started,) = [e.tool_call_started for e in events if e.HasField("tool_call_started")]
        headers = json_format.MessageToDict(started.arguments)["headers"]
        assert headers == {"Authorization": "[REDACTED]", "X-Note": "[REDACTED]"}
        records = await t.tool_records("acme")
        assert secret_key not in str(records)
        assert records[0].arguments["headers"]["X-Note"] == "[REDACTED]"
        rpcs = await t.rpc_records()
        assert [(r.principal_id, r.tenant) for r in rpcs if "reflection" in r.method] == [
            ("public", "")
        ]


async def test_a_tool_call_and_its_rpc_are_recorded_in_one_commit(tmp_path: Path) -> None:
    """CallTool's two records (the tool call's, the RPC's) share one transaction, and
    both are stored before the caller hears back, even when the RPC record is slow."""
    commits: list[object] = []

    def count(connection: object) -> None:
        commits.append(connection)

    async with trusted(tmp_path, [{"text": "hello"}]) as t:
        alice = await t.client("acme", "alice")
        await t.grant("acme", "principal:alice", "calculator", "read")
        await alice.call_tool("calculator", {"expression": "1+1"})  # the key's first use
        event.listen(Engine, "commit", count)
        try:
            result = await alice.call_tool("calculator", {"expression": "2+2"})
        finally:
            event.remove(Engine, "commit", count)
        assert len(commits) == 1
        t.server.audit._sink = SlowSink(t.server.audit._sink)
        slow = await alice.call_tool("calculator", {"expression": "3+3"})
        async with t.server.durable.database.engine.connect() as connection:
            rows = (await connection.execute(select(tool_call_audit.c.call_id))).scalars().all()
        assert {result.call_id, slow.call_id} <= set(rows)
        assert [r.code for r in await t.rpc_records()] == ["OK"] * 3


async def test_a_tool_call_whose_record_cannot_be_stored_is_not_answered_ok(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the database out of reach when CallTool's records are committed (after the
    tool ran), the caller hears UNAVAILABLE, not the result: nothing unrecorded is
    answered as done."""
    monkeypatch.setattr(group_commit, "RETRY_DELAYS", ())
    async with trusted(tmp_path, [{"text": "hello"}]) as t:
        alice = await t.client("acme", "alice")
        await t.grant("acme", "principal:alice", "calculator", "read")
        await alice.call_tool("calculator", {"expression": "1+1"})
        writer = t.server.durable.database.writer

        async def out_of_reach(groups: object) -> list[int]:
            raise ConnectionError("the database is out of reach")

        monkeypatch.setattr(writer, "_transaction", out_of_reach)
        with pytest.raises(client_errors.StoreUnavailableError):
            await alice.call_tool("calculator", {"expression": "2+2"})
        monkeypatch.undo()
        async with t.server.durable.database.engine.connect() as connection:
            rows = (await connection.execute(select(tool_call_audit.c.call_id))).scalars().all()
        assert len(rows) == 1
        assert [r.code for r in await t.rpc_records()] == ["OK"]


async def test_concurrent_calls_find_both_records_stored_when_answered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _concurrent_calls(tmp_path, monkeypatch)


@pytest.mark.postgres
async def test_concurrent_calls_find_both_records_stored_when_answered_on_postgres(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, database: str
) -> None:
    await _concurrent_calls(tmp_path, monkeypatch, database_url=database)


async def _concurrent_calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **url: str) -> None:
    """Eight callers at once, their records committed in shared (and slow) group commits:
    the moment each reply arrives, its tool-call record and its RPC record are readable."""
    async with trusted(tmp_path, **url) as t:
        alice = await t.client("acme", "alice")
        await t.grant("acme", "principal:alice", "calculator", "read")
        await alice.call_tool("calculator", {"expression": "1+1"})  # the key's first use
        writer = t.server.durable.database.writer
        transaction = writer._transaction

        async def slow(groups: object) -> list[int]:
            await asyncio.sleep(0.02)  # a reply sent before the commit would now beat it
            return await transaction(groups)  # type: ignore[arg-type]

        monkeypatch.setattr(writer, "_transaction", slow)
        engine = t.server.durable.database.engine
        missing: list[str] = []
        batches: list[int] = []

        async def caller(n: int) -> None:
            for i in range(10):
                result = await alice.call_tool("calculator", {"expression": f"{n}*{i}"})
                async with engine.connect() as connection:
                    calls = select(tool_call_audit.c.trace_id).where(
                        tool_call_audit.c.call_id == result.call_id
                    )
                    traces = (await connection.execute(calls)).scalars().all()
                    rpcs = select(rpc_audit.c.method).where(rpc_audit.c.trace_id.in_(traces))
                    methods = (await connection.execute(rpcs)).scalars().all()
                if len(traces) != 1 or methods != ["/agentd.v1.AgentService/CallTool"]:
                    missing.append(f"{result.call_id}: {len(traces)} tool, {methods} rpc")

        real_commit = writer._commit

        async def commit(batch: list[object]) -> None:
            batches.append(len(batch))
            await real_commit(batch)  # type: ignore[arg-type]

        monkeypatch.setattr(writer, "_commit", commit)
        await asyncio.gather(*(caller(n) for n in range(8)))
        assert missing == []
        assert max(batches) > 2  # several callers' records shared a commit
