"""Values from outside held to one depth cap (`core.text.within_depth`)."""

from __future__ import annotations

import json
from typing import Any

from google.protobuf import json_format, struct_pb2

from core.text import MAX_JSON_DEPTH, json_depth, within_depth


def _nested(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(levels - 1):
        value = {"i": value}
    return value


def test_depths_are_counted_without_recursion() -> None:
    assert json_depth("text") == 0
    assert json_depth([1, {"a": [2]}]) == 3
    assert json_depth(_nested(200_000)) == 200_000  # no RecursionError


def test_a_value_within_the_cap_is_kept_as_it_is() -> None:
    value = _nested(MAX_JSON_DEPTH)
    assert within_depth(value) is value
    json_format.ParseDict(value, struct_pb2.Value())  # protobuf takes it


def test_a_deeper_value_becomes_its_json_text() -> None:
    value = _nested(MAX_JSON_DEPTH + 1)
    text = within_depth(value)
    assert isinstance(text, str)
    assert json.loads(text) == value
    too_deep = within_depth(_nested(100_000))  # past what json.dumps can walk
    assert too_deep == "(a value nested 100000 levels deep, too deep to show)"
