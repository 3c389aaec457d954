"""The garbage collector, set for a long-running server.

What is loaded at startup (modules, schemas, clients: most of the heap) lives as long
as the process. `settle` moves it out of the collector's reach (`gc.freeze`), so that
a full collection scans only what requests and tasks have allocated since: without it,
each full collection scanned the whole startup heap and stopped the event loop for
~0.2 s under load, stalling every task and stream of the process at once. The first
generation's threshold is raised, so that a burst of small allocations (events,
messages) is collected in fewer, larger passes. Cycles are still collected.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 10_000
"""Allocations (net of frees) of container objects between young collections (700 by
default in CPython)."""


def settle() -> None:
    """Collect once, then leave what is alive now out of every later collection."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)
