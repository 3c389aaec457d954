"""Page tokens, for gRPC and A2A alike: a typed cursor (`records.paging`) as an opaque
string and back, and the page sizes a request may ask for.

A token is base64url JSON (no padding) of the cursor: `{"c": created_at, "i": id}` for a
`TimeCursor`, `{"c": created_at, "i": id, "k": key}` for a `TimeKeyCursor`, `{"r":
position}` for a `PositionCursor`, `{"g": group, "i": id}` for a `KeyCursor`. Tokens are
not signed: reading one checks its shape and bounds, and every list applies the caller's
own filters (tenant, owner, what it may answer) whatever the cursor says, so a made-up
token can only move where a caller's own list starts. The format is the one
agentd has always issued: a token from an earlier version reads the same.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

from core.errors import FieldViolation, InvalidArgumentError
from records.paging import Cursor, KeyCursor, PositionCursor, TimeCursor, TimeKeyCursor

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 200
MAX_TOKEN_LENGTH = 8192
"""The longest token read: room for a `TimeKeyCursor` of the longest id and key, each
character of them escaped (`\\ud83d\\ude00`: 12 bytes for one)."""
MAX_ID_LENGTH = 128
"""The longest id a `TimeCursor` or `TimeKeyCursor` token may carry."""
MAX_KEY_LENGTH = 256
"""The longest key a `TimeKeyCursor` token may carry (a wait's slot)."""
_NOT_OURS = "is not a token this server issued"
C = TypeVar("C")


def page_size(value: int, default: int = DEFAULT_PAGE_SIZE, maximum: int = MAX_PAGE_SIZE) -> int:
    """The size asked for (`default` for 0); INVALID_ARGUMENT naming `page_size` when it is
    out of 1..`maximum`."""
    if value == 0:
        return default
    if not 1 <= value <= maximum:
        raise InvalidArgumentError(
            [FieldViolation("page_size", f"must be between 1 and {maximum} (0 for {default})")]
        )
    return value


def token(cursor: Cursor | None) -> str:
    """The page token of `cursor` ("" for None: no page follows)."""
    data: dict[str, object]
    match cursor:
        case None:
            return ""
        case TimeCursor(created_at, item_id):
            data = {"c": created_at.isoformat(), "i": item_id}
        case TimeKeyCursor(created_at, item_id, key):
            data = {"c": created_at.isoformat(), "i": item_id, "k": key}
        case PositionCursor(position):
            data = {"r": position}
        case KeyCursor(group, item_id):
            data = {"g": group, "i": item_id}
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


def time_cursor(page_token: str) -> TimeCursor | None:
    """The `TimeCursor` of a page token (None for "": the first page)."""
    return _decoded(page_token, _time) if page_token else None


def time_key_cursor(page_token: str) -> TimeKeyCursor | None:
    """The `TimeKeyCursor` of a page token (None for "": the first page)."""
    return _decoded(page_token, _time_key) if page_token else None


def position_cursor(page_token: str) -> PositionCursor | None:
    """The `PositionCursor` of a page token (None for "": the first page)."""
    return _decoded(page_token, _position) if page_token else None


def key_cursor(page_token: str) -> KeyCursor | None:
    """The `KeyCursor` of a page token (None for "": the first page)."""
    return _decoded(page_token, _key) if page_token else None


def _decoded(page_token: str, read: Callable[[Any], C]) -> C:
    """What `read` makes of the token's JSON; INVALID_ARGUMENT for a token this server
    did not issue (too long, not base64url JSON, or `read` raising ValueError, KeyError
    or TypeError at what it finds)."""
    if len(page_token) > MAX_TOKEN_LENGTH:
        raise InvalidArgumentError([FieldViolation("page_token", _NOT_OURS)])
    padded = page_token + "=" * (-len(page_token) % 4)
    try:
        return read(json.loads(base64.urlsafe_b64decode(padded)))
    except (binascii.Error, ValueError, KeyError, TypeError, UnicodeDecodeError, RecursionError):
        raise InvalidArgumentError([FieldViolation("page_token", _NOT_OURS)]) from None


def _time(data: Any) -> TimeCursor:
    created = datetime.fromisoformat(data["c"])
    item_id = data["i"]
    if created.tzinfo is None or not isinstance(item_id, str) or len(item_id) > MAX_ID_LENGTH:
        raise ValueError
    return TimeCursor(created, item_id)


def _time_key(data: Any) -> TimeKeyCursor:
    at = _time(data)
    key = data["k"]
    if not isinstance(key, str) or not key or len(key) > MAX_KEY_LENGTH:
        raise ValueError
    return TimeKeyCursor(at.created_at, at.item_id, key)


def _position(data: Any) -> PositionCursor:
    position = data["r"]
    if not isinstance(position, int) or isinstance(position, bool) or not 0 <= position < 2**63:
        raise ValueError
    return PositionCursor(position)


def _key(data: Any) -> KeyCursor:
    group, item_id = data["g"], data["i"]
    if not isinstance(group, int) or isinstance(group, bool) or not isinstance(item_id, str):
        raise ValueError
    return KeyCursor(group, item_id)
