"""The registry's use of the cache of tool results (`stores.tool_cache`).

Only successful results of tools with `cache_seconds` (idempotent, read-only) are
kept, per tenant, under the tool's name and the canonical digest of the
arguments. A cache that fails (Redis unreachable) costs the saving, never the
call: a failed lookup is a miss, a failed store is forgotten.
"""

from __future__ import annotations

from collections.abc import Mapping

import structlog

from core.metrics import TOOL_CACHE
from records.tools.audit import digest
from records.tools.model import JSONValue, ToolSpec
from stores.tool_cache.base import CachedResult, ToolCache

log = structlog.get_logger(__name__)


def cache_key(spec: ToolSpec, arguments: Mapping[str, JSONValue]) -> str:
    return f"{spec.name}/{digest(dict(arguments))}"


async def lookup(cache: ToolCache, spec: ToolSpec, tenant: str, key: str) -> CachedResult | None:
    """The cached result of a call (`key`: its `cache_key`), if there is one; counted as a
    hit or a miss."""
    try:
        found = await cache.get(tenant, key)
    except Exception:
        log.warning("tool cache lookup failed", tool=spec.name, exc_info=True)
        found = None
    TOOL_CACHE.labels(spec.name, "miss" if found is None else "hit").inc()
    return found


async def keep(
    cache: ToolCache, spec: ToolSpec, tenant: str, key: str, result: CachedResult
) -> None:
    """Keep a successful result (`key`: the call's `cache_key`) for the tool's
    `cache_seconds`."""
    try:
        await cache.put(tenant, key, result, spec.cache_seconds)
    except Exception:
        log.warning("tool cache store failed", tool=spec.name, exc_info=True)
