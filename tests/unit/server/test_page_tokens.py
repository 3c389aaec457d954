"""Page tokens (server.convert.pages): each cursor kind round-trips, tokens issued before
cursors were typed read the same, and a token this server did not issue is
INVALID_ARGUMENT naming `page_token`."""

from __future__ import annotations

import base64
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone

import pytest

from core.errors import InvalidArgumentError
from records.paging import KeyCursor, PositionCursor, TimeCursor, TimeKeyCursor
from server.convert import pages

WHEN = datetime(2026, 3, 4, 5, 6, 7, 890000, tzinfo=UTC)


def test_every_cursor_kind_round_trips() -> None:
    at = TimeCursor(WHEN, "task_0a1b")
    assert pages.time_cursor(pages.token(at)) == at
    row = PositionCursor(12345)
    assert pages.position_cursor(pages.token(row)) == row
    key = KeyCursor(1, "support")
    assert pages.key_cursor(pages.token(key)) == key
    slot = TimeKeyCursor(WHEN, "task_0a1b", "question:call_7")
    assert pages.time_key_cursor(pages.token(slot)) == slot


def test_the_longest_time_key_cursor_fits_in_a_token() -> None:
    """A wait's cursor: a task id of the longest an id may be, a slot of the longest a slot
    may be, every character escaped in the token's JSON."""
    longest = TimeKeyCursor(WHEN, "é" * pages.MAX_ID_LENGTH, "😀" * pages.MAX_KEY_LENGTH)
    assert pages.time_key_cursor(pages.token(longest)) == longest


def test_no_cursor_is_the_empty_token_and_the_empty_token_the_first_page() -> None:
    assert pages.token(None) == ""
    assert pages.time_cursor("") is None
    assert pages.position_cursor("") is None
    assert pages.key_cursor("") is None
    assert pages.time_key_cursor("") is None
    assert pages.page_size(0) == pages.DEFAULT_PAGE_SIZE


def test_tokens_issued_by_earlier_versions_read_the_same() -> None:
    # Written by server/rpcs/paging.py before cursors were typed; callers may hold them.
    assert pages.time_cursor(
        "eyJjIjogIjIwMjYtMDMtMDRUMDU6MDY6MDcuODkwMDAwKzAwOjAwIiwgImkiOiAidGFza18wYTFiIn0"
    ) == TimeCursor(WHEN, "task_0a1b")
    plus_two = datetime(2026, 3, 4, 5, 6, 7, tzinfo=timezone(timedelta(hours=2)))
    assert pages.time_cursor(
        "eyJjIjogIjIwMjYtMDMtMDRUMDU6MDY6MDcrMDI6MDAiLCAiaSI6ICJjb252XzkifQ"
    ) == TimeCursor(plus_two, "conv_9")
    assert pages.position_cursor("eyJyIjogMTIzNDV9") == PositionCursor(12345)
    assert pages.key_cursor("eyJnIjogMSwgImkiOiAic3VwcG9ydCJ9") == KeyCursor(1, "support")
    assert pages.key_cursor("eyJnIjogMCwgImkiOiAia2JfZG9jcyJ9") == KeyCursor(0, "kb_docs")
    # ... and the tokens issued now are those same strings.
    assert pages.token(KeyCursor(0, "kb_docs")) == "eyJnIjogMCwgImkiOiAia2JfZG9jcyJ9"
    assert pages.token(PositionCursor(12345)) == "eyJyIjogMTIzNDV9"


def _raw(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    ("read", "token"),
    [
        (pages.time_cursor, "not-a-token"),
        (pages.time_cursor, _raw('{"c": "2026-03-04T05:06:07", "i": "naive"}')),
        (pages.time_cursor, _raw('{"c": "2026-03-04T05:06:07+00:00", "i": "' + "x" * 129 + '"}')),
        (pages.time_cursor, _raw('{"r": 1}')),
        (pages.time_cursor, _raw("[1, 2]")),
        (pages.time_cursor, "A" * (pages.MAX_TOKEN_LENGTH + 1)),
        (pages.position_cursor, _raw('{"r": -1}')),
        (pages.position_cursor, _raw('{"r": 9223372036854775808}')),
        (pages.position_cursor, _raw('{"r": true}')),
        (pages.position_cursor, _raw('{"c": "2026-03-04T05:06:07+00:00", "i": "t"}')),
        (pages.key_cursor, _raw('{"g": "0", "i": "x"}')),
        (pages.key_cursor, _raw('{"g": 0, "i": 7}')),
        (pages.key_cursor, _raw('{"g": false, "i": "x"}')),
        (pages.time_key_cursor, _raw('{"c": "2026-03-04T05:06:07+00:00", "i": "t"}')),
        (pages.time_key_cursor, _raw('{"c": "2026-03-04T05:06:07+00:00", "i": "t", "k": ""}')),
        (pages.time_key_cursor, _raw('{"c": "2026-03-04T05:06:07+00:00", "i": "t", "k": 1}')),
        (pages.time_key_cursor, _raw('{"c": "2026-03-04T05:06:07", "i": "t", "k": "s"}')),
        (
            pages.time_key_cursor,
            _raw('{"c": "2026-03-04T05:06:07+00:00", "i": "t", "k": "' + "s" * 257 + '"}'),
        ),
    ],
)
def test_a_token_not_ours_is_an_invalid_page_token(
    read: Callable[[str], object], token: str
) -> None:
    with pytest.raises(InvalidArgumentError) as refused:
        read(token)
    assert [v.field for v in refused.value.violations] == ["page_token"]


def test_page_sizes_zero_for_the_default_and_bounded() -> None:
    assert pages.page_size(0) == pages.DEFAULT_PAGE_SIZE
    assert pages.page_size(pages.MAX_PAGE_SIZE) == pages.MAX_PAGE_SIZE
    for asked in (-1, pages.MAX_PAGE_SIZE + 1):
        with pytest.raises(InvalidArgumentError) as refused:
            pages.page_size(asked)
        assert [v.field for v in refused.value.violations] == ["page_size"]
    assert pages.page_size(0, default=100, maximum=1000) == 100
