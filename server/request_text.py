"""Text no store can hold is refused at the boundary, on every RPC and every backend.

PostgreSQL refuses a NUL character in text (and `\\u0000` in JSON), so a request field
holding one reached a query and answered INTERNAL there (`GetTask` of `task\\x00x`,
`ListAuditRecords` of tool_name `a\\x00`), while SQLite and Redis took it. Every string
of a request, Struct values and map keys included, is looked at once before the method
runs; each one holding NUL is a field violation. Invalid UTF-8 and lone surrogates never
get this far: protobuf refuses them when it parses the request.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from google.protobuf import struct_pb2
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from core.errors import FieldViolation, InvalidArgumentError

NUL = "\x00"
JSON_TYPES = {"google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"}
WHAT = "holds a NUL character (not storable text)"


def refuse_nul(request: object) -> None:
    """Raise InvalidArgumentError naming every string field of `request` that holds NUL."""
    if not isinstance(request, Message):
        return
    if b"\x00" not in request.SerializeToString():  # no string holds NUL: nothing to walk
        return
    paths = list(_nul_paths(request, ""))
    if paths:
        raise InvalidArgumentError([FieldViolation(path, WHAT) for path in paths])


def _shown(key: object) -> str:
    return str(key).replace(NUL, "\\0")


def _nul_paths(message: Message, prefix: str) -> Iterator[str]:
    if message.DESCRIPTOR.full_name in JSON_TYPES:
        yield from _json_nul_paths(message, prefix.rstrip("."))
        return
    for field, value in message.ListFields():
        path = prefix + field.name
        entry = field.message_type
        if entry is not None and entry.GetOptions().map_entry:
            yield from _map_nul_paths(entry, value, path)
        elif field.is_repeated:
            for index, item in enumerate(value):
                yield from _value_nul_paths(field, item, f"{path}[{index}]")
        else:
            yield from _value_nul_paths(field, value, path)


def _map_nul_paths(entry: Any, value: Any, path: str) -> Iterator[str]:
    value_field = entry.fields_by_name["value"]
    for key, item in value.items():
        if isinstance(key, str) and NUL in key:
            yield path
        yield from _value_nul_paths(value_field, item, f"{path}.{_shown(key)}")


def _value_nul_paths(field: FieldDescriptor, value: Any, path: str) -> Iterator[str]:
    if field.type == FieldDescriptor.TYPE_STRING:
        if NUL in value:
            yield path
    elif field.type == FieldDescriptor.TYPE_MESSAGE:
        yield from _nul_paths(value, path + ".")


def _json_nul_paths(value: Any, path: str) -> Iterator[str]:
    """Paths as the JSON reads (`arguments.options.name`, `context.items[2]`)."""
    if isinstance(value, struct_pb2.Value):
        kind = value.WhichOneof("kind")
        if kind == "string_value" and NUL in value.string_value:
            yield path
        elif kind in ("struct_value", "list_value"):
            yield from _json_nul_paths(getattr(value, kind), path)
    elif isinstance(value, struct_pb2.Struct):
        for key, item in value.fields.items():
            if NUL in key:
                yield path
            yield from _json_nul_paths(item, f"{path}.{_shown(key)}" if path else _shown(key))
    elif isinstance(value, struct_pb2.ListValue):
        for index, item in enumerate(value.values):
            yield from _json_nul_paths(item, f"{path}[{index}]")
