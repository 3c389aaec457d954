"""Datetimes read back from SQL."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import overload


@overload
def aware(value: datetime) -> datetime: ...
@overload
def aware(value: None) -> None: ...
def aware(value: datetime | None) -> datetime | None:
    """SQLite hands back naive datetimes; every time agentd stores is UTC."""
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=UTC)
