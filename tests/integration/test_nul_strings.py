"""A NUL character in any string field of any request is refused at the boundary as
INVALID_ARGUMENT naming that field, on every backend: PostgreSQL cannot hold NUL in text
(it answered INTERNAL for `GetTask` of `task\\x00x` and `ListAuditRecords` of tool_name
`a\\x00`), and every backend answers alike.

The requests are built from the service's descriptor, so RPCs and fields added later are
covered without touching this test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import descriptor, message_factory, struct_pb2
from google.protobuf.descriptor import FieldDescriptor

from agentd.v1 import agent_service_pb2 as pb
from tests.contract.conftest import REDIS_URL
from tests.integration.test_hostile_requests import _violations
from tests.servers import QUIET, running_server, settings_in

SERVICE = pb.DESCRIPTOR.services_by_name["AgentService"]
NUL = "a\x00b"
STRUCT = struct_pb2.Struct.DESCRIPTOR.full_name
SKIPPED_TYPES = {"google.protobuf.Timestamp", "google.protobuf.Duration"}


def _paths(message: Any, depth: int = 0) -> Iterator[tuple[str, ...]]:
    """Paths (field names from the request down) to every string field and Struct."""
    for field in message.fields:
        if field.type == FieldDescriptor.TYPE_STRING:
            yield (field.name,)
        elif field.type == FieldDescriptor.TYPE_MESSAGE and depth < 3:
            sub = field.message_type
            if sub.GetOptions().map_entry or sub.full_name == STRUCT:
                yield (field.name,)
            elif sub.full_name not in SKIPPED_TYPES and not sub.full_name.startswith("google."):
                for rest in _paths(sub, depth + 1):
                    yield (field.name, *rest)


def _request(method: descriptor.MethodDescriptor, path: tuple[str, ...]) -> tuple[Any, str]:
    """A request of `method` whose field at `path` holds NUL, and the violation's field."""
    request = message_factory.GetMessageClass(method.input_type)()
    target: Any = request
    shown = ""
    for name in path[:-1]:
        field = target.DESCRIPTOR.fields_by_name[name]
        if field.is_repeated:
            target = getattr(target, name).add()
            shown += f"{name}[0]."
        else:
            target = getattr(target, name)
            shown += f"{name}."
    last = path[-1]
    field = target.DESCRIPTOR.fields_by_name[last]
    entry: Any = field.message_type
    if entry is not None and entry.GetOptions().map_entry:
        value_field = entry.fields_by_name["value"]
        value: Any = NUL if value_field.type == FieldDescriptor.TYPE_STRING else None
        if value is None:  # a map of messages: the key holds NUL
            getattr(target, last)[NUL]
            return request, f"{shown}{last}"
        getattr(target, last)["k"] = value
        return request, f"{shown}{last}.k"
    if field.type == FieldDescriptor.TYPE_MESSAGE and field.is_repeated:  # Structs
        getattr(target, last).add().update({"k": NUL})
        return request, f"{shown}{last}[0].k"
    if field.type == FieldDescriptor.TYPE_MESSAGE:  # a Struct
        getattr(target, last).update({"k": NUL})
        return request, f"{shown}{last}.k"
    if field.is_repeated:
        getattr(target, last).append(NUL)
        return request, f"{shown}{last}[0]"
    setattr(target, last, NUL)
    return request, f"{shown}{last}"


CASES = [(method, path) for method in SERVICE.methods for path in _paths(method.input_type)]


def test_every_rpc_has_string_fields_to_try() -> None:
    tried = {method.name for method, _ in CASES}
    assert tried >= {"GetTask", "ListAuditRecords", "Execute", "CreateAgent", "CreateGrant"}
    assert len(CASES) > 60


async def _call(channel: grpc.aio.Channel, method: descriptor.MethodDescriptor, body: Any) -> None:
    name = f"/{SERVICE.full_name}/{method.name}"
    raw = body.SerializeToString()
    if method.server_streaming:
        async for _ in channel.unary_stream(name, None, None)(raw, timeout=10):
            pass
    else:
        await channel.unary_unary(name, None, None)(raw, timeout=10)


@pytest.mark.postgres
@pytest.mark.redis
async def test_nul_in_any_string_field_is_invalid_argument(
    tmp_path: Path, database: str, prefix: str
) -> None:
    backends = {
        "sqlite": {},
        "postgres-redis": {
            "database_url": database,
            "redis_url": REDIS_URL,
            "redis_prefix": prefix,
        },
    }
    wrong: list[str] = []
    for backend, values in backends.items():
        settings = settings_in(tmp_path / backend, **QUIET, **values)
        async with running_server(settings) as running:
            for method, path in CASES:
                request, field = _request(method, path)
                where = f"{backend} {method.name} {'.'.join(path)}"
                try:
                    await _call(running.channel, method, request)
                except grpc.aio.AioRpcError as error:
                    violations = [f for f, _ in _violations(error)]
                    if error.code() != grpc.StatusCode.INVALID_ARGUMENT or violations != [field]:
                        wrong.append(f"{where}: {error.code().name} {violations}")
                    continue
                wrong.append(f"{where}: accepted")
    assert wrong == []
