"""Every RPC through the real grpc.aio server and the real client, including bad input."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import pytest
from google.protobuf import struct_pb2

from agentd.v1 import agent_service_pb2 as pb
from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from agentd.v1 import tasks_pb2, tools_pb2
from agentd_client import errors as client_errors
from agentd_client.client import AgentClient, to_python
from records.tasks import Task, TaskStatus
from server.app import AgentdServer
from server.settings import Settings
from stores.audit.memory import InMemoryAuditLog
from stores.tasks.memory import InMemoryTaskStore
from tests.helpers import http_server, nested_struct, proto_field
from tests.servers import QUIET, Running, running_server, settings_in
from tools.registry import ToolRegistry


async def test_list_tools(client: AgentClient) -> None:
    tools = await client.list_tools()
    names = [t.name for t in tools]
    assert names == sorted(
        [
            "calculator",
            "current_time",
            "http_request",
            "json_query",
            "list_files",
            "read_artifact",
            "read_file",
            "write_artifact",
            "write_file",
        ]
    )
    calc = next(t for t in tools if t.name == "calculator")
    assert calc.required_permission == tools_pb2.PERMISSION_LEVEL_NONE
    assert calc.risk == tools_pb2.RISK_LEVEL_LOW
    assert calc.idempotent
    assert to_python(calc.parameters_schema)["required"] == ["expression"]
    write = next(t for t in tools if t.name == "write_file")
    assert write.required_permission == tools_pb2.PERMISSION_LEVEL_WRITE
    assert not write.idempotent
    assert [t.name for t in await client.list_tools("files")] == [
        "list_files",
        "read_file",
        "write_file",
    ]


async def test_call_tool_calculator(client: AgentClient, audit: InMemoryAuditLog) -> None:
    result = await client.call_tool("calculator", {"expression": "(2 + 3) * 4 / 8"})
    assert result.text == "2.5"
    assert to_python(result.result)["result"] == "2.5"
    assert not result.HasField("error")
    assert result.duration.ToTimedelta().total_seconds() >= 0
    assert audit.records[-1].call_id == result.call_id


async def test_tool_failure_is_an_error_result(client: AgentClient) -> None:
    result = await client.call_tool("calculator", {"expression": "1/0"})
    assert result.error.kind == tools_pb2.TOOL_ERROR_KIND_FAILED
    assert result.error.message == "division by zero"
    assert not result.HasField("result")


async def test_bad_arguments_give_field_violations(client: AgentClient) -> None:
    with pytest.raises(client_errors.ToolArgumentsInvalidError) as info:
        await client.call_tool("calculator", {"expr": 5})
    error = info.value
    assert error.code is grpc.StatusCode.INVALID_ARGUMENT
    assert error.reason == "TOOL_ARGUMENTS_INVALID"
    assert {v.field for v in error.field_violations} == {"arguments.expression", "arguments.expr"}
    with pytest.raises(client_errors.ToolArgumentsInvalidError) as info:
        await client.call_tool("calculator", {"expression": 5})
    assert [v.field for v in info.value.field_violations] == ["arguments.expression"]


async def test_unknown_tool_and_missing_name(client: AgentClient) -> None:
    with pytest.raises(client_errors.ToolNotFoundError) as info:
        await client.call_tool("rm_rf", {})
    assert info.value.code is grpc.StatusCode.NOT_FOUND
    assert info.value.metadata == {"tool": "rm_rf"}
    with pytest.raises(client_errors.InvalidArgumentError) as missing:
        await client.call_tool("", {})
    assert missing.value.field_violations[0].field == "tool_name"


async def test_path_escape_and_private_address_refused(client: AgentClient) -> None:
    with pytest.raises(client_errors.PathOutsideWorkspaceError) as info:
        await client.call_tool("read_file", {"path": "../../etc/passwd"})
    assert info.value.code is grpc.StatusCode.INVALID_ARGUMENT
    assert info.value.field_violations[0].field == "arguments.path"
    with pytest.raises(client_errors.DestinationNotAllowedError) as denied:
        await client.call_tool("http_request", {"url": "http://169.254.169.254/latest"})
    assert denied.value.code is grpc.StatusCode.PERMISSION_DENIED


async def test_file_tools_through_the_server(client: AgentClient, settings: Settings) -> None:
    await client.call_tool("write_file", {"path": "a/b.txt", "content": "hi"})
    assert (settings.workspace_dir / "a" / "b.txt").read_text() == "hi"
    read = await client.call_tool("read_file", {"path": "a/b.txt"})
    assert read.text == "hi"
    listing = await client.call_tool("list_files", {"recursive": True})
    assert [e["path"] for e in to_python(listing.result)["entries"]] == ["a", "a/b.txt"]


async def test_http_request_through_the_server(client: AgentClient) -> None:
    with http_server() as url:
        result = await client.call_tool("http_request", {"url": f"{url}/json"})
    assert to_python(result.result)["json"]["name"] == "agentd"


async def test_oversize_arguments(client: AgentClient) -> None:
    with pytest.raises(client_errors.RequestTooLargeError) as info:
        await client.call_tool("json_query", {"data": "x" * 300_000, "expression": "a"})
    assert info.value.field_violations[0].field == "arguments"


async def test_oversize_message_is_refused_by_the_transport(tmp_path: Path) -> None:
    settings = settings_in(tmp_path, **QUIET, max_message_bytes=64 * 1024)
    async with running_server(settings) as running, running.client() as client:
        with pytest.raises(client_errors.ResourceExhaustedError):
            await client.call_tool("json_query", {"data": "x" * 100_000, "expression": "a"})
        assert (await client.call_tool("calculator", {"expression": "1+1"})).text == "2"


async def test_garbage_bytes_are_rejected_and_server_keeps_serving(running: Running) -> None:
    channel = running.channel
    raw = channel.unary_unary(
        "/agentd.v1.AgentService/CallTool",
        request_serializer=lambda b: b,
        response_deserializer=lambda b: b,
    )
    for garbage in (b"\xff\xff\xff\xff", b"\x0a\xff\xff\xff\xff\x0f", b"\x12\x05\x0a\x03"):
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await raw(garbage, timeout=5)
        assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert "DecodeError" not in (info.value.details() or "")
    raw_stream = channel.unary_stream(
        "/agentd.v1.AgentService/StreamTaskEvents",
        request_serializer=lambda b: b,
        response_deserializer=lambda b: b,
    )
    with pytest.raises(grpc.aio.AioRpcError) as streamed:
        async for _ in raw_stream(b"\xff\xff\xff", timeout=5):
            pass
    assert streamed.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    stub = pb_grpc.AgentServiceStub(channel)
    ok = await stub.CallTool(
        pb.CallToolRequest(
            tool_name="calculator",
            arguments=struct_pb2.Struct(
                fields={"expression": struct_pb2.Value(string_value="6*7")}
            ),
        ),
        timeout=5,
    )
    assert ok.text == "42"


async def test_absurdly_nested_arguments_are_refused(running: Running) -> None:
    channel = running.channel
    raw = channel.unary_unary(
        "/agentd.v1.AgentService/CallTool",
        request_serializer=lambda b: b,
        response_deserializer=lambda b: b,
    )
    request = proto_field(0x0A, b"json_query") + proto_field(0x12, nested_struct(500))
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await raw(request, timeout=10)
    assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    shallow = proto_field(0x0A, b"json_query") + proto_field(0x12, nested_struct(3))
    with pytest.raises(grpc.aio.AioRpcError) as bad_args:
        await raw(shallow, timeout=10)  # decodes, but misses "expression" and "data"
    assert bad_args.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert "TOOL_ARGUMENTS_INVALID" not in (bad_args.value.details() or "x")  # message, not reason


async def test_hostile_strings_in_fields(client: AgentClient) -> None:
    for name in ("../../etc/passwd", "calc\x00ulator", "😀" * 50, "x" * 129):
        with pytest.raises((client_errors.ToolNotFoundError, client_errors.InvalidArgumentError)):
            await client.call_tool(name, {})
    with pytest.raises(client_errors.InvalidArgumentError):
        await client.get_task("t" * 129)


async def test_get_and_cancel_unknown_task(client: AgentClient) -> None:
    with pytest.raises(client_errors.TaskNotFoundError) as info:
        await client.get_task("task_doesnotexist")
    assert info.value.code is grpc.StatusCode.NOT_FOUND
    assert info.value.reason == "TASK_NOT_FOUND"
    with pytest.raises(client_errors.TaskNotFoundError):
        await client.cancel_task("task_doesnotexist")
    with pytest.raises(client_errors.InvalidArgumentError) as missing:
        await client.get_task("")
    assert missing.value.field_violations[0].field == "task_id"
    with pytest.raises(client_errors.TaskNotFoundError):
        async for _ in client.stream_task_events("task_doesnotexist"):
            pass


async def test_get_and_cancel_a_stored_task(registry: ToolRegistry, settings: Settings) -> None:
    store = InMemoryTaskStore()
    await store.create(Task(task_id="task_a", tenant="default", owner="anonymous", goal="do"))
    await store.create(Task(task_id="task_other", tenant="other", owner="x", goal="theirs"))
    async with (
        running_server(settings, registry=registry, tasks=store) as running,
        running.client() as client,
    ):
        task = await client.get_task("task_a")
        assert task.status == tasks_pb2.TASK_STATUS_PENDING
        assert task.task == "do"
        with pytest.raises(client_errors.TaskNotFoundError):
            await client.get_task("task_other")  # another tenant's task looks unknown
        cancelled = await client.cancel_task("task_a", "no longer needed")
        assert cancelled.status == tasks_pb2.TASK_STATUS_CANCELLED
        assert cancelled.stop_reason == tasks_pb2.STOP_REASON_CANCELLED
        assert cancelled.stop_detail == "no longer needed"
        with pytest.raises(client_errors.TaskAlreadyTerminalError) as info:
            await client.cancel_task("task_a")
        assert info.value.code is grpc.StatusCode.FAILED_PRECONDITION
        assert (await store.get("default", "task_a")).status is TaskStatus.CANCELLED


async def test_execute_and_plan_without_a_model_name_the_settings(client: AgentClient) -> None:
    with pytest.raises(client_errors.LLMNotConfiguredError) as info:
        async for _ in client.execute("add 2 and 2"):
            pass
    assert info.value.code is grpc.StatusCode.FAILED_PRECONDITION
    assert "AGENTD_LLM_MODEL" in info.value.message
    assert "AGENTD_LLM_BASE_URL" in info.value.message
    with pytest.raises(client_errors.LLMNotConfiguredError):
        await client.plan("add 2 and 2")


async def test_health_overall_and_per_service(client: AgentClient) -> None:
    assert await client.health() == "SERVING"
    assert await client.health("agentd.v1.AgentService") == "SERVING"
    with pytest.raises(client_errors.NotFoundError):
        await client.health("no.such.Service")


async def test_concurrent_calls(client: AgentClient) -> None:
    results = await asyncio.gather(
        *(client.call_tool("calculator", {"expression": f"{i} * {i}"}) for i in range(50))
    )
    assert [r.text for r in results] == [str(i * i) for i in range(50)]


async def test_traceparent_is_honoured(
    client: AgentClient, audit: InMemoryAuditLog, server: AgentdServer
) -> None:
    trace_id = "4bf92f3577b34da6a3ce929d0e0e4736"
    async with AgentClient(
        f"127.0.0.1:{server.port}", metadata=[("traceparent", f"00-{trace_id}-00f067aa0ba902b7-01")]
    ) as traced:
        await traced.call_tool("calculator", {"expression": "1"})
    assert audit.records[-1].trace_id == trace_id
