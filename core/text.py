"""Making text from outside (models, tools, stored records) safe to encode and store.

Python strings may hold lone surrogates (JSON's `"\\ud800"` decodes to one), which
no UTF-8 encoder accepts: protobuf, Redis and SQL would all fail on them. They
become U+FFFD here, whatever their container.
"""

from __future__ import annotations

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
