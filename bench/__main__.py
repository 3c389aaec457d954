"""`make bench`: run every benchmark and print its figures."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable, Coroutine
from typing import Any

from bench import (
    a2a,
    call_tool,
    checkpoints,
    conversations,
    engine,
    guardrails,
    memory,
    models,
    replays,
    startup,
    stores,
    teams,
    toolsets,
    urls,
)
from bench.doors import mcp, responses
from bench.files import artifacts, inputs
from bench.people import approvals, steering
from bench.recorded import traces
from bench.spending import ledger, reservations, steps
from bench.webhooks import outbox


def _async(run: Callable[[], Coroutine[Any, Any, None]]) -> Callable[[], None]:
    return lambda: asyncio.run(run())


BENCHES: list[tuple[Callable[[], None], bool]] = [
    (_async(call_tool.main), True),
    (_async(engine.main), True),
    (_async(steps.main), True),
    (_async(stores.main), True),
    (_async(reservations.main), True),
    (_async(ledger.main), True),
    (_async(traces.main), True),
    (_async(outbox.main), True),
    (_async(checkpoints.main), True),
    (urls.main, True),
    (_async(toolsets.main), True),
    (_async(conversations.main), True),
    (_async(artifacts.main), False),
    (_async(inputs.main), True),
    (startup.main, False),
    (_async(models.main), False),
    (_async(memory.main), False),
    (_async(teams.main), False),  # late: it quiets the engine's INFO logs
    (_async(a2a.main), True),
    (_async(mcp.main), True),
    (_async(responses.main), True),
    (_async(approvals.main), True),
    (_async(steering.main), True),
    (_async(guardrails.main), False),
    (_async(replays.main), True),
]
"""Every benchmark in the order it runs, and whether a blank line follows its figures."""


def main() -> None:
    for run, spaced in BENCHES:
        # Each starts from a collected heap: the garbage an earlier one left would
        # otherwise be collected (a full collection: a fifth of a second) inside the
        # measurement of whichever bench happens to cross the threshold.
        gc.collect()
        run()
        if spaced:
            print()


if __name__ == "__main__":
    main()
