"""Cached results of read-only tools, per tenant.

The contract of a `ToolCache`:

- `put(tenant, key, result, ttl)` keeps `result` under (`tenant`, `key`) for
  `ttl` seconds, replacing whatever was there; `get` returns it until then, and
  None after (expired), before (never put) or under another tenant: tenants
  never see each other's entries, whatever their keys.
- A stored value that does not decode as a `CachedResult` (left by another
  version, or damaged) is a miss, never an error.
- Entries are bounded (memory: the least recently used go first; Redis: by their
  time to live and the server's memory policy). A cache may forget an entry at
  any time: it holds copies, never the only record of anything.

Only the registry decides what is cached (successful results of idempotent,
read-only tools; `tools.registry`); the key it uses is the tool's name and the
canonical digest of the arguments.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class CachedResult:
    """What a successful tool call returned."""

    data: Any
    """The structured result (a JSON value)."""
    text: str
    """The result as text."""


def encode(result: CachedResult) -> str:
    return json.dumps({"data": result.data, "text": result.text}, separators=(",", ":"))


def decode(value: str | bytes | None) -> CachedResult | None:
    """The stored result, or None when there is none or it does not decode."""
    if value is None:
        return None
    try:
        raw = json.loads(value)
        text = raw["text"]
        if not isinstance(text, str):
            return None
        return CachedResult(raw["data"], text)
    except (ValueError, TypeError, KeyError):  # json's errors are ValueErrors
        return None


def entry_name(tenant: str, key: str) -> str:
    """One name per (tenant, key): the separator cannot occur in a tenant id."""
    return f"{tenant}\x1f{key}"


class ToolCache(Protocol):
    async def get(self, tenant: str, key: str) -> CachedResult | None:
        """The tenant's result under `key`, or None (missing, expired or undecodable)."""
        ...

    async def put(self, tenant: str, key: str, result: CachedResult, ttl_seconds: float) -> None:
        """Keep `result` for `ttl_seconds`, replacing any earlier one."""
        ...
