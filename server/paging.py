"""Opaque page tokens for list RPCs: a keyset cursor ((created_at, id), a position, or
(group, id)), base64url JSON."""

from __future__ import annotations

import base64
import binascii
import json
from datetime import datetime

from core.errors import FieldViolation, InvalidArgumentError

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 200


def page_size(value: int, default: int = DEFAULT_PAGE_SIZE, maximum: int = MAX_PAGE_SIZE) -> int:
    if value == 0:
        return default
    if not 1 <= value <= maximum:
        raise InvalidArgumentError(
            [FieldViolation("page_size", f"must be between 1 and {maximum} (0 for {default})")]
        )
    return value


def encode_position(row_id: int) -> str:
    """A token for "after row `row_id`" (audit records)."""
    return base64.urlsafe_b64encode(json.dumps({"r": row_id}).encode()).decode().rstrip("=")


MAX_TOKEN_LENGTH = 512


def _refuse_long(token: str) -> None:
    if len(token) > MAX_TOKEN_LENGTH:
        raise InvalidArgumentError(
            [FieldViolation("page_token", "is not a token this server issued")]
        )


def decode_position(token: str) -> int:
    if not token:
        return 0
    _refuse_long(token)
    try:
        data = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
        row_id = data["r"]
        if not isinstance(row_id, int) or isinstance(row_id, bool) or not 0 <= row_id < 2**63:
            raise ValueError
    except (binascii.Error, ValueError, KeyError, TypeError, UnicodeDecodeError, RecursionError):
        raise InvalidArgumentError(
            [FieldViolation("page_token", "is not a token this server issued")]
        ) from None
    return row_id


def encode(created_at: datetime, item_id: str) -> str:
    raw = json.dumps({"c": created_at.isoformat(), "i": item_id}).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode(token: str) -> tuple[datetime, str] | None:
    if not token:
        return None
    _refuse_long(token)
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        data = json.loads(raw)
        created = datetime.fromisoformat(data["c"])
        item_id = data["i"]
        if created.tzinfo is None or not isinstance(item_id, str) or len(item_id) > 128:
            raise ValueError
    except (binascii.Error, ValueError, KeyError, TypeError, UnicodeDecodeError, RecursionError):
        raise InvalidArgumentError(
            [FieldViolation("page_token", "is not a token this server issued")]
        ) from None
    return created, item_id


def encode_key(group: int, item_id: str) -> str:
    """A token for "after item `item_id` of group `group`" (a list ordered by both)."""
    raw = json.dumps({"g": group, "i": item_id}).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_key(token: str) -> tuple[int, str] | None:
    if not token:
        return None
    _refuse_long(token)
    try:
        data = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
        group, item_id = data["g"], data["i"]
        if not isinstance(group, int) or isinstance(group, bool) or not isinstance(item_id, str):
            raise ValueError
    except (binascii.Error, ValueError, KeyError, TypeError, UnicodeDecodeError, RecursionError):
        raise InvalidArgumentError(
            [FieldViolation("page_token", "is not a token this server issued")]
        ) from None
    return group, item_id
