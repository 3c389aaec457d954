"""What the server reads again while it runs (agent files, the toolsets file, grants): one
loop that does it, and one way to say what is wrong with a file.

`keep_reloading` calls a reload function every few seconds until it is cancelled. A
reload that changed something is logged once; one that failed is logged (the first of a
run of failures with its traceback, the later ones in a line each) and whatever was
loaded before stays in force.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import structlog

from core.secrets import scrub

log = structlog.get_logger(__name__)


@dataclass(frozen=True, slots=True)
class FileProblem:
    """Something wrong with a file the server reads: where, which field, what."""

    path: str
    field: str
    """The field at fault (`toolsets.notes.mcp.headers.Authorization`, `model`), or
    `(file)` for the whole file."""
    problem: str
    """What is wrong, never quoting a value (it may be a secret)."""
    warning: bool = False
    """True for something worth fixing that did not stop the definition being used."""


def no_details() -> Mapping[str, Any]:
    return {}


async def keep_reloading(
    reload: Callable[[], Awaitable[bool]],
    every_seconds: float,
    *,
    changed: str,
    failed: str,
    details: Callable[[], Mapping[str, Any]] = no_details,
) -> None:
    """Call `reload` every `every_seconds` until cancelled. When it returns True, log
    `changed` (with `details()`); when it raises, log `failed` and go on."""
    failures = 0
    while True:
        await asyncio.sleep(every_seconds)
        try:
            reloaded = await reload()
        except Exception as error:
            failures += 1
            if failures == 1:
                log.warning(failed, exc_info=True)
            else:
                why = scrub(f"{type(error).__name__}: {error}")
                log.warning(failed, error=why, failures=failures)
            continue
        failures = 0
        if reloaded:
            log.info(changed, **details())
