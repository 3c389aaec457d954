"""Opaque page tokens for list RPCs: a keyset cursor ((created_at, id), a position, or
(group, id)), base64url JSON."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, TypeVar

from core.errors import FieldViolation, InvalidArgumentError

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 200
T = TypeVar("T")


def page_size(value: int, default: int = DEFAULT_PAGE_SIZE, maximum: int = MAX_PAGE_SIZE) -> int:
    if value == 0:
        return default
    if not 1 <= value <= maximum:
        raise InvalidArgumentError(
            [FieldViolation("page_size", f"must be between 1 and {maximum} (0 for {default})")]
        )
    return value


MAX_TOKEN_LENGTH = 512
_NOT_OURS = "is not a token this server issued"


def _encode(data: dict[str, object]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


def _decoded(token: str, read: Callable[[Any], T]) -> T:
    """What `read` makes of the token's JSON; INVALID_ARGUMENT for a token this server
    did not issue (too long, not base64url JSON, or `read` raising ValueError, KeyError
    or TypeError at what it finds)."""
    if len(token) > MAX_TOKEN_LENGTH:
        raise InvalidArgumentError([FieldViolation("page_token", _NOT_OURS)])
    try:
        return read(json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))))
    except (binascii.Error, ValueError, KeyError, TypeError, UnicodeDecodeError, RecursionError):
        raise InvalidArgumentError([FieldViolation("page_token", _NOT_OURS)]) from None


def encode_position(row_id: int) -> str:
    """A token for "after row `row_id`" (audit records)."""
    return _encode({"r": row_id})


def decode_position(token: str) -> int:
    return _decoded(token, _position) if token else 0


def _position(data: Any) -> int:
    row_id = data["r"]
    if not isinstance(row_id, int) or isinstance(row_id, bool) or not 0 <= row_id < 2**63:
        raise ValueError
    return row_id


def encode(created_at: datetime, item_id: str) -> str:
    return _encode({"c": created_at.isoformat(), "i": item_id})


def decode(token: str) -> tuple[datetime, str] | None:
    return _decoded(token, _created_and_id) if token else None


def _created_and_id(data: Any) -> tuple[datetime, str]:
    created = datetime.fromisoformat(data["c"])
    item_id = data["i"]
    if created.tzinfo is None or not isinstance(item_id, str) or len(item_id) > 128:
        raise ValueError
    return created, item_id


def encode_key(group: int, item_id: str) -> str:
    """A token for "after item `item_id` of group `group`" (a list ordered by both)."""
    return _encode({"g": group, "i": item_id})


def decode_key(token: str) -> tuple[int, str] | None:
    return _decoded(token, _group_and_id) if token else None


def _group_and_id(data: Any) -> tuple[int, str]:
    group, item_id = data["g"], data["i"]
    if not isinstance(group, int) or isinstance(group, bool) or not isinstance(item_id, str):
        raise ValueError
    return group, item_id


def cut(found: Sequence[T], size: int, token: Callable[[T], str]) -> tuple[Sequence[T], str]:
    """A page of `found` (asked for `size` + 1 rows: one more than the page, to learn
    whether more follow) and the token for the next page ("" when none follows)."""
    page = found[:size]
    return page, token(page[-1]) if len(found) > size else ""


def by_id(asked: int, page_token: str, maximum: int) -> tuple[int, str]:
    """A page of a list ordered by id: its size (`asked`, 0 for the default) and the id
    it starts after ("" for the first page); INVALID_ARGUMENT for a size out of range or
    a token not ours."""
    size = page_size(asked, maximum=maximum)
    after = decode_key(page_token)
    return size, after[1] if after else ""


def id_token(item_id: str) -> str:
    """The token of the page after the item `item_id` (a list ordered by id)."""
    return encode_key(0, item_id)
