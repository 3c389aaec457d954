"""A caller's mistakes answer INVALID_ARGUMENT naming the field, never INTERNAL, and the
error detail stays small whatever the request held."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any, cast

import grpc
import pytest
from google.protobuf import struct_pb2, timestamp_pb2
from google.rpc import error_details_pb2, status_pb2

from agentd.v1 import agent_service_pb2 as pb
from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from agentd.v1 import audit_pb2, grants_pb2, tools_pb2
from tests.integration.harness import harness
from tests.servers import Running

FAR_FUTURE = timestamp_pb2.Timestamp(seconds=10**12)  # the year 33658


@pytest.fixture
def stub(running: Running) -> pb_grpc.AgentServiceAsyncStub:
    return running.stub


def _violations(error: grpc.aio.AioRpcError) -> list[tuple[str, str]]:
    trailers = cast(Iterable[tuple[str, str | bytes]], error.trailing_metadata() or ())
    for key, value in trailers:
        if key == "grpc-status-details-bin":
            assert isinstance(value, bytes)
            for detail in status_pb2.Status.FromString(value).details:
                bad = error_details_pb2.BadRequest()
                if detail.Unpack(bad):
                    return [(v.field, v.description) for v in bad.field_violations]
    return []


async def _refused(call: Any) -> list[tuple[str, str]]:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT, caught.value.details()
    return _violations(caught.value)


def _token(data: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


async def test_times_out_of_range_are_invalid_arguments(stub: pb_grpc.AgentServiceStub) -> None:
    listed = await _refused(stub.ListTasks(pb.ListTasksRequest(created_after=FAR_FUTURE)))
    assert listed[0][0] == "created_after"
    audit = await _refused(
        stub.ListAuditRecords(
            pb.ListAuditRecordsRequest(kind=audit_pb2.AUDIT_KIND_RPC, since=FAR_FUTURE)
        )
    )
    assert audit[0][0] == "since"
    grant = grants_pb2.Grant(
        subject="role:ops",
        tool="calculator",
        level=tools_pb2.PERMISSION_LEVEL_READ,
        expires_at=timestamp_pb2.Timestamp(seconds=-(10**12)),
    )
    created = await _refused(stub.CreateGrant(pb.CreateGrantRequest(grant=grant)))
    assert created[0][0] == "grant.expires_at"


async def test_forged_page_tokens_are_invalid_arguments(stub: pb_grpc.AgentServiceStub) -> None:
    deep = '{"c": ' + "[" * 100_000 + "]" * 100_000 + ', "i": "x"}'
    shallow_but_odd = '{"c": [[[[[["2026"]]]]]], "i": "x"}'
    for raw in (deep, shallow_but_odd, "%%%"):
        token = base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")
        violations = await _refused(stub.ListTasks(pb.ListTasksRequest(page_token=token)))
        assert violations[0][0] == "page_token"
    for row_id in (2**63, 2**64 + 1):
        request = pb.ListAuditRecordsRequest(
            kind=audit_pb2.AUDIT_KIND_RPC, page_token=_token({"r": row_id})
        )
        assert (await _refused(stub.ListAuditRecords(request)))[0][0] == "page_token"


async def test_nan_and_infinity_in_a_struct_are_invalid_arguments(
    stub: pb_grpc.AgentServiceStub,
) -> None:
    arguments = struct_pb2.Struct()
    arguments.update({"expression": "1+1", "options": {"scale": float("nan")}})
    request = pb.CallToolRequest(tool_name="calculator", arguments=arguments)
    violations = await _refused(stub.CallTool(request))
    assert violations == [("arguments.options.scale", "is not a finite number (NaN or infinity)")]
    context = struct_pb2.Struct()
    context.update({"limits": [1.0, float("inf")]})
    plan = pb.PlanRequest(task="plan it", context=context)
    refused = await _refused(stub.Plan(plan))
    assert refused[0][0] == "context.limits[1]"


async def test_thousands_of_bad_fields_give_a_bounded_error(tmp_path: Path) -> None:
    request = pb.ExecuteRequest(task="go", tools=[f"no_such_tool_{n}" for n in range(5_000)])
    async with harness(tmp_path, []) as h:
        stub = h.running.stub
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            async for _ in stub.Execute(request):
                pass
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    violations = _violations(caught.value)
    assert len(violations) == 20
    assert violations[0][0] == "tools[0]"
    assert violations[-1] == ("request", "... and 4981 more problems like these")
    assert len(caught.value.details() or "") < 20_000
