"""The one tokenisation rule of keyword search, shared by every backend (the in-process
store's word sets, SQLite's FTS5 table, PostgreSQL's tsvector), so that a query finds
the same items on each.

Text is case-folded and cut into runs of letters and digits. A run of another script
is one term (a word). Chinese, Japanese and Korean write without spaces between words
(Korean attaches particles to them), so a run of their characters is indexed as its
single characters and its overlapping character bigrams: 東京タワー → 東 京 タ ワ ー 東京
京タ タワ ワー. A query's CJK run asks for its bigrams (one character alone: that
character), so any two neighbouring characters of the query found in a text match it,
and texts sharing more of them rank higher. The backends' own tokenisers (FTS5's
`unicode61`, PostgreSQL's `simple` parser) then only see terms separated by spaces.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_RUN = re.compile(r"[^\W_]+")
_CJK = re.compile(
    "["
    "\u1100-\u11ff"  # Hangul Jamo
    "\u2e80-\u2fdf"  # CJK radicals, Kangxi radicals
    "\u3005-\u3007"  # 々 〆 〇
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3130-\u318f"  # Hangul compatibility Jamo
    "\u31f0-\u31ff"  # Katakana phonetic extensions
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\ua960-\ua97f"  # Hangul Jamo extended A
    "\uac00-\ud7ff"  # Hangul syllables, Jamo extended B
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\uff66-\uffdc"  # half-width Katakana and Hangul
    "\U00020000-\U0003134f"  # CJK extensions B to G
    "]+"
)
MAX_QUERY_TERMS = 64
"""Terms of a query at most (the first ones): a query stays cheap whatever its length."""
KEYWORD_POOL = 500
"""Keyword matches a backend ranks at most per tier (items holding every term of the
query, then items holding any): ranking costs time per match, and a term found in
nearly every item must not make a search scan them all."""


def _pieces(text: str) -> Iterator[tuple[str, bool]]:
    """The text's runs of letters and digits, split into CJK and other pieces (is_cjk)."""
    folded = text.casefold()
    if _CJK.search(folded) is None:  # the common case, fast
        yield from ((run, False) for run in _RUN.findall(folded))
        return
    for run in _RUN.findall(folded):
        position = 0
        for cjk in _CJK.finditer(run):
            if cjk.start() > position:
                yield run[position : cjk.start()], False
            yield cjk.group(), True
            position = cjk.end()
        if position < len(run):
            yield run[position:], False


def _bigrams(piece: str) -> list[str]:
    return [piece[n : n + 2] for n in range(len(piece) - 1)]


def index_terms(text: str) -> list[str]:
    """The terms a stored text is found by, in order (repeats kept: they weigh in BM25)."""
    terms: list[str] = []
    for piece, cjk in _pieces(text):
        if cjk:
            terms.extend(piece)
            terms.extend(_bigrams(piece))
        else:
            terms.append(piece)
    return terms


def query_terms(text: str) -> list[str]:
    """The distinct terms a query asks for (any of them matches), at most MAX_QUERY_TERMS."""
    terms: list[str] = []
    for piece, cjk in _pieces(text):
        terms.extend(_bigrams(piece) if cjk and len(piece) > 1 else [piece])
    return list(dict.fromkeys(terms))[:MAX_QUERY_TERMS]


def keyword_text(text: str) -> str:
    """`index_terms` joined by spaces: what the FTS5 table and the tsvector are made of."""
    folded = text.casefold()
    if _CJK.search(folded) is None:  # no CJK: the words as they are
        return " ".join(_RUN.findall(folded))
    return " ".join(index_terms(text))
