"""The collector is set for a server: what startup loaded is left out of every later
collection."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from server import heap


@pytest.fixture
def restored() -> Iterator[None]:
    threshold = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)


def test_settle_leaves_what_is_alive_out_of_later_collections(restored: None) -> None:
    kept: list[list[int]] = [[] for _ in range(3)]  # tracked by the collector, kept alive
    heap.settle()
    assert gc.get_freeze_count() >= len(kept)
    cycle: list[object] = []
    cycle.append(cycle)  # allocated after: still collected
    del cycle
    assert gc.collect() >= 1
