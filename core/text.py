"""Making text from outside (models, tools, stored records) safe to encode and store.

Python strings may hold lone surrogates (JSON's `"\\ud800"` decodes to one), which
no UTF-8 encoder accepts: protobuf, Redis and SQL would all fail on them. They
become U+FFFD here, whatever their container.
"""

from __future__ import annotations

import json
import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(value: str) -> str:
    """`value` with every lone surrogate replaced by U+FFFD (the same object if none)."""
    if value.isascii():
        return value
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", value)
    return value


def clean_json(value: Any) -> Any:
    """A JSON-like value with every string (keys included) passed through `clean_text`.

    Returns `value` itself when nothing needed cleaning; walks without recursion.
    """
    if isinstance(value, str):
        return clean_text(value)
    if not isinstance(value, dict | list | tuple) or _clean(value):
        return value
    return _rebuild(value)


def _clean(value: Any) -> bool:
    """Whether every string in `value` is already clean."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if clean_text(item) is not item:
                return False
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return True


def _rebuild(value: Any) -> Any:
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean_text(str(k)): _rebuild(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_rebuild(v) for v in value]
    return value


MAX_JSON_DEPTH = 32
"""How deep a structured value from outside (a tool's result) may nest: protobuf's parser
refuses a Struct nested past 100 messages, which a JSON value reaches at about 50 levels."""


def json_depth(value: Any) -> int:
    """How many containers deep `value` nests (a scalar: 0); walks without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list | tuple):
            deepest = max(deepest, depth)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return deepest


def within_depth(value: Any) -> Any:
    """`value` itself when it nests at most `MAX_JSON_DEPTH` deep; else its compact JSON
    text, a string every encoder, store and reader takes."""
    if json_depth(value) <= MAX_JSON_DEPTH:
        return value
    try:
        return json.dumps(value, separators=(",", ":"), default=str)
    except RecursionError:
        return f"(a value nested {json_depth(value)} levels deep, too deep to show)"
