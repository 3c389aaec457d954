"""JSON values as protobuf's Struct and Value, and back (tool arguments and results, task
context, plan steps)."""

from __future__ import annotations

import math
from typing import Any

from google.protobuf import json_format, struct_pb2

from core.errors import FieldViolation, InvalidArgumentError
from core.text import clean_json
from records.tools.model import JSONValue

MAX_SAFE_INTEGER = 2**53


def _plain(value: struct_pb2.Value) -> Any:
    """A Value as MessageToDict gives it, whole numbers as ints (JSON numbers arrive as
    doubles)."""
    kind = value.WhichOneof("kind")
    if kind == "string_value":
        return value.string_value
    if kind == "number_value":
        number = value.number_value
        return int(number) if number.is_integer() and abs(number) <= MAX_SAFE_INTEGER else number
    if kind == "bool_value":
        return value.bool_value
    if kind == "struct_value":
        return {key: _plain(item) for key, item in value.struct_value.fields.items()}
    if kind == "list_value":
        return [_plain(item) for item in value.list_value.values]
    return None  # null, or nothing set


def struct_to_dict(struct: struct_pb2.Struct, field: str = "arguments") -> dict[str, JSONValue]:
    """A Struct as plain data. InvalidArgumentError for NaN or an infinity (not JSON)."""
    if not struct.fields:
        return {}
    bad = _not_finite(struct, field)
    if bad:
        raise InvalidArgumentError(
            [FieldViolation(bad, "is not a finite number (NaN or infinity)")]
        )
    return {key: _plain(value) for key, value in struct.fields.items()}


def _not_finite(struct: struct_pb2.Struct, field: str) -> str:
    """The path of the first NaN or infinite number in `struct`, or ""."""
    stack: list[tuple[str, struct_pb2.Value]] = [
        (f"{field}.{key}", value) for key, value in struct.fields.items()
    ]
    while stack:
        path, value = stack.pop()
        kind = value.WhichOneof("kind")
        if kind == "number_value" and not math.isfinite(value.number_value):
            return path
        if kind == "struct_value":
            stack.extend((f"{path}.{k}", v) for k, v in value.struct_value.fields.items())
        elif kind == "list_value":
            stack.extend((f"{path}[{i}]", v) for i, v in enumerate(value.list_value.values))
    return ""


def dict_to_struct(data: dict[str, JSONValue]) -> struct_pb2.Struct:
    struct = struct_pb2.Struct()
    _fill(struct, clean_json(data))
    return struct


def to_value(data: JSONValue) -> struct_pb2.Value:
    value = struct_pb2.Value()
    cleaned = clean_json(data)
    if not isinstance(cleaned, dict):
        json_format.ParseDict(cleaned, value)
        return value
    value.struct_value.SetInParent()  # an empty object is still an object
    _fill(value.struct_value, cleaned)
    return value


def _fill(struct: struct_pb2.Struct, data: Any) -> None:
    """`struct` holding `data`: as ParseDict makes it, through protobuf's own `update`
    (several times faster); what it cannot hold fails with ParseDict's error."""
    try:
        struct.update(data)
    except (TypeError, ValueError):
        struct.Clear()
        json_format.ParseDict(data, struct)
