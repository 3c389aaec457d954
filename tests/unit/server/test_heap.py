"""The collector is set for a server: what startup loaded is left out of every later
collection, and young collections are fewer."""

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


def test_settle_freezes_what_is_alive_and_raises_the_young_threshold(restored: None) -> None:
    before = gc.get_threshold()
    heap.settle()
    assert gc.get_freeze_count() > 0
    young, middle, old = gc.get_threshold()
    assert young == heap.YOUNG_THRESHOLD
    assert (middle, old) == before[1:]
    cycle: list[object] = []
    cycle.append(cycle)  # allocated after: still collected
    del cycle
    assert gc.collect() >= 1
