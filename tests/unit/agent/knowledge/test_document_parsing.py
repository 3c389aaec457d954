"""Parsing and cutting documents: whatever a corrupt PDF makes pypdf raise is
INVALID_ARGUMENT; HTML whose `</head>` is left out keeps its body's text; NUL characters
go and UTF-16/32 with a byte order mark is decoded; a long run without blanks (base64,
Thai, minified JSON) is cut into bounded chunks, nothing lost; parsing a large document
leaves the event loop free."""

from __future__ import annotations

import asyncio
import base64
import codecs
import contextlib
import time
from collections.abc import Sequence

import numpy as np
import pypdf
import pytest
from pypdf.errors import LimitReachedError

from agent.knowledge.documents import KnowledgeBases, chunks, parse
from agent.llm.embeddings import HashEmbedder
from core.errors import InvalidArgumentError
from records.knowledge.items import Scope, Vectors
from stores.knowledge.memory import InMemoryKnowledgeStore
from tests.contract.test_knowledge_bases import PDF_TEXT, tiny_pdf


@pytest.mark.parametrize(
    "error",
    [
        LimitReachedError("decompression limit reached"),
        AssertionError(),
        AttributeError("'NullObject' object has no attribute 'get'"),
        RecursionError("maximum recursion depth exceeded"),
        IndexError("list index out of range"),
    ],
)
def test_whatever_the_pdf_reader_raises_is_an_unreadable_pdf(
    error: Exception, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise error

    monkeypatch.setattr(pypdf, "PdfReader", broken)
    with pytest.raises(InvalidArgumentError) as raised:
        parse(tiny_pdf(PDF_TEXT), "application/pdf")
    assert "content: is not a readable PDF" in str(raised.value)
    assert type(error).__name__ in str(raised.value)


def test_a_cancellation_while_reading_a_pdf_is_not_taken_for_a_bad_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def cancelled(*args: object, **kwargs: object) -> None:
        raise asyncio.CancelledError

    monkeypatch.setattr(pypdf, "PdfReader", cancelled)
    with pytest.raises(asyncio.CancelledError):
        parse(tiny_pdf(PDF_TEXT), "application/pdf")


def test_a_pdf_with_an_unknown_filter_is_unreadable() -> None:
    content = tiny_pdf(PDF_TEXT).replace(b"/FlateDecode", b"/NoSuchDecode")
    with pytest.raises(InvalidArgumentError) as raised:  # pypdf: NotImplementedError
        parse(content, "application/pdf")
    assert "is not a readable PDF (NotImplementedError: Unsupported filter" in str(raised.value)


def test_truncated_and_scrambled_pdfs_are_unreadable_never_internal() -> None:
    good = tiny_pdf(PDF_TEXT)
    corrupt = [
        good[: len(good) // 2],
        good.replace(b"/Kids [3 0 R]", b"/Kids [9 0 R]"),
        good.replace(b"/Pages 2 0 R", b"/Pages 4 0 R"),
        good.replace(b"/Contents 5 0 R", b"/Contents 1 0 R"),
        good.replace(b"/FlateDecode", b"/LZWDecode"),
        good.replace(b"/Count 1", b"/Count (x)"),
    ]
    for content in corrupt:
        # pypdf may read past some damage; anything else than INVALID_ARGUMENT fails here
        with contextlib.suppress(InvalidArgumentError):
            parse(content, "application/pdf")


def test_html_without_its_closing_head_tag_keeps_the_body_s_text() -> None:
    html = b"<html><head><title>T</title><body><p>The shop opens at nine.</p></body></html>"
    assert parse(html, "text/html").strip() == "The shop opens at nine."
    no_body = b"<html><head><title>T</title><meta charset=utf-8><p>Open at nine.</p>"
    assert parse(no_body, "text/html").strip() == "Open at nine."
    closed = b"<html><head><title>T</title><style>p {}</style></head><p>Hi there.</p>"
    assert parse(closed, "text/html").strip() == "Hi there."


def test_nul_characters_go_and_utf16_with_a_bom_is_decoded() -> None:
    assert parse(b"The shop\x00 opens\x00 at nine.", "text/plain") == "The shop opens at nine."
    assert parse(b"<p>nine\x00 o'clock</p>", "text/html") == "\nnine o'clock"
    text = "Le magasin ouvre à neuf heures."
    for codec, bom in (
        ("utf-16-le", codecs.BOM_UTF16_LE),
        ("utf-16-be", codecs.BOM_UTF16_BE),
        ("utf-32-le", codecs.BOM_UTF32_LE),
        ("utf-8", codecs.BOM_UTF8),
    ):
        assert parse(bom + text.encode(codec), "text/plain") == text, codec


def test_a_long_run_without_blanks_is_cut_into_bounded_chunks_nothing_lost() -> None:
    run = base64.b64encode(bytes(range(256)) * (4096 * 3 // 2)).decode()  # 2 MB, no blank
    assert len(run) > 1_500_000
    cut = list(chunks(run, 300, 0))
    assert len(cut) > 200
    assert max(len(piece) for piece in cut) <= 300 * 24
    assert "".join(cut) == run
    overlapped = list(chunks("word " + run[:1000] + " end", 10, 2))
    assert max(len(piece) for piece in overlapped) <= 10 * 25


def test_thai_and_a_long_url_are_cut_too() -> None:
    thai = "ร้านเปิดเวลาเก้าโมงเช้าทุกวัน" * 200
    assert "".join(chunks(thai, 50, 0)) == thai
    assert max(len(piece) for piece in chunks(thai, 50, 0)) <= 50 * 24
    url = "https://example.com/" + "a" * 100
    assert list(chunks(f"see {url} now", 300, 0)) == [f"see {url} now"]


class Instant(HashEmbedder):
    async def embed(self, texts: Sequence[str]) -> Vectors:
        return np.ones((len(texts), self.space.dimensions), np.float32)


async def test_parsing_a_large_document_leaves_the_event_loop_free() -> None:
    paragraph = b"<div><p>The shop opens at nine <b>every</b> day of the week.</p></div>\n"
    html = paragraph * (2 * 1024 * 1024 // len(paragraph))  # 2 MB of HTML, more if need be
    for _ in range(4):  # a document whose parsing alone takes long enough to be seen
        started = time.perf_counter()
        parse(html, "text/html")
        alone = time.perf_counter() - started
        if alone > 0.4:
            break
        html *= 2
    assert alone > 0.4, f"parsing took only {alone:.2f} s: the test would prove nothing"

    knowledge = KnowledgeBases(InMemoryKnowledgeStore(), Instant(8), chunk_tokens=4000)
    adding = asyncio.create_task(knowledge.add_document("acme", "kb", html, "text/html"))
    lags = []
    deadline = time.perf_counter() + 120
    while not adding.done() and time.perf_counter() < deadline:
        before = time.perf_counter()
        await asyncio.sleep(0.01)
        lags.append(time.perf_counter() - before - 0.01)
    _, count = await adding
    assert count > 50
    assert await knowledge.store.count(Scope("acme", "chunk")) == count
    assert len(lags) > 10
    # Parsing on the loop would stall it about as long as parsing alone takes; the bound
    # scales with that, so a slow (or busy) machine tests the same thing as a fast one.
    bound = max(0.2, alone / 2)
    assert max(lags) < bound, f"the event loop stalled {max(lags):.2f} s (parsing: {alone:.2f} s)"
