"""The periodic sweep of durable records past their retention (`stores.retention.base`).

Every `interval_seconds` (jittered by up to a tenth, so that replicas started together
drift apart), each rule's records that expired are deleted in batches of at most
`batch`, until a batch comes back short, at most `max_batches` a sweep (the next sweep
goes on). Batches are separate short transactions, so a sweep never holds a lock for
long, and between them the loop yields to the server's other work. Several replicas
may sweep at once (`Expiring` says why that is safe). A failed sweep is logged and the
loop goes on; cancelling the loop's task stops it.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import structlog

from stores.retention.base import Expiring

log = structlog.get_logger(__name__)


@dataclass(frozen=True, slots=True)
class Rule:
    """Records of one kind and how long they are kept."""

    records: Expiring
    keep_seconds: float


def _now() -> datetime:
    return datetime.now(UTC)


class RetentionSweeper:
    def __init__(
        self,
        rules: Sequence[Rule],
        *,
        interval_seconds: float = 300.0,
        batch: int = 500,
        max_batches: int = 1000,
        clock: Callable[[], datetime] = _now,
    ) -> None:
        if batch <= 0 or max_batches <= 0 or interval_seconds <= 0:
            raise ValueError("batch, max_batches and interval_seconds must be positive")
        self.rules = [r for r in rules if r.keep_seconds > 0]
        self._interval = interval_seconds
        self._batch = batch
        self._max_batches = max_batches
        self._clock = clock

    async def sweep(self) -> dict[str, int]:
        """One sweep of every rule: how many records of each went."""
        now = self._clock()
        swept: dict[str, int] = {}
        for rule in self.rules:
            before = now - timedelta(seconds=rule.keep_seconds)
            total = 0
            for _ in range(self._max_batches):
                gone = await rule.records.sweep(before, self._batch)
                total += gone
                if gone < self._batch:
                    break
                await asyncio.sleep(0)  # between batches, the server's other work
            swept[rule.records.name] = total
        return swept

    async def run(self) -> None:
        """Sweep every interval until cancelled."""
        while True:
            await asyncio.sleep(self._interval * random.uniform(0.9, 1.0))
            try:
                swept = await self.sweep()
            except Exception as error:  # noqa: BLE001 - logged; the next sweep tries again
                log.warning("retention sweep failed; the next one tries again", error=repr(error))
                continue
            if any(swept.values()):
                log.info("retention sweep", **{k.replace(" ", "_"): v for k, v in swept.items()})
