"""The garbage collector, set for a long-running server.

What is loaded at startup (modules, schemas, clients: most of the heap) lives as long
as the process. `settle` moves it out of the collector's reach (`gc.freeze`), so that
a full collection scans only what requests and tasks have allocated since: without it,
each full collection scanned the whole startup heap and stopped the event loop for
~0.2 s under load, stalling every task and stream of the process at once. Cycles are
still collected, at the usual thresholds (higher ones hold more garbage per task).
"""

from __future__ import annotations

import gc


def settle() -> None:
    """Collect once, then leave what is alive now out of every later collection."""
    gc.collect()
    gc.freeze()
