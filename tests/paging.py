"""Reading a list to its end in the store suites: page after page, each after the cursor
the one before ends with."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from records.paging import Cursor, Page

T = TypeVar("T")
C = TypeVar("C", bound=Cursor)


async def every_page(
    read: Callable[[C | None], Awaitable[Page[T, C]]], most: int = 1_000
) -> list[tuple[T, ...]]:
    """The items of each page `read` gives, from the first (after None), each next one
    after the cursor of the one before, until a page has none; AssertionError when more
    than `most` pages come (a cursor that goes nowhere)."""
    pages: list[tuple[T, ...]] = []
    after: C | None = None
    for _ in range(most):
        page = await read(after)
        pages.append(page.items)
        if page.next is None:
            return pages
        assert page.items, "a page with a next cursor has items"
        after = page.next
    raise AssertionError(f"more than {most} pages")


def page_sizes(total: int, size: int) -> list[int]:
    """The sizes of the pages of `total` items read `size` at a time (one empty page when
    there are none)."""
    return [min(size, total - start) for start in range(0, total, size)] or [0]
