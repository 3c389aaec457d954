"""Opaque page tokens for list RPCs: a keyset cursor (created_at, id), base64url JSON."""

from __future__ import annotations

import base64
import binascii
import json
from datetime import datetime

from core.errors import FieldViolation, InvalidArgumentError

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 200


def page_size(value: int) -> int:
    if value == 0:
        return DEFAULT_PAGE_SIZE
    if not 1 <= value <= MAX_PAGE_SIZE:
        raise InvalidArgumentError(
            [
                FieldViolation(
                    "page_size",
                    f"must be between 1 and {MAX_PAGE_SIZE} (0 for {DEFAULT_PAGE_SIZE})",
                )
            ]
        )
    return value


def encode(created_at: datetime, item_id: str) -> str:
    raw = json.dumps({"c": created_at.isoformat(), "i": item_id}).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode(token: str) -> tuple[datetime, str] | None:
    if not token:
        return None
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        data = json.loads(raw)
        created = datetime.fromisoformat(data["c"])
        item_id = data["i"]
        if created.tzinfo is None or not isinstance(item_id, str):
            raise ValueError
    except (binascii.Error, ValueError, KeyError, TypeError, UnicodeDecodeError):
        raise InvalidArgumentError(
            [FieldViolation("page_token", "is not a token this server issued")]
        ) from None
    return created, item_id
