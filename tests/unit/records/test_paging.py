"""Page.cut: a page of `size` items from `size` + 1 read, its next cursor only when more
followed."""

from __future__ import annotations

from records.paging import KeyCursor, Page


def _key(item: str) -> KeyCursor:
    return KeyCursor(0, item)


def test_one_item_more_than_the_page_means_a_next_page_after_its_last_item() -> None:
    page = Page.cut(["a", "b", "c"], 2, _key)
    assert page == Page(("a", "b"), KeyCursor(0, "b"))


def test_no_more_than_the_page_means_the_last_page() -> None:
    assert Page.cut(["a", "b"], 2, _key) == Page(("a", "b"), None)
    assert Page.cut(["a"], 2, _key) == Page(("a",), None)
    assert Page.cut([], 2, _key) == Page((), None)
