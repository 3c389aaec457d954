"""Knowledge bases on every backend: a Markdown, an HTML and a PDF document (the PDF made
here), chunked and embedded; a question cites the right document and chunk, an off-topic
one finds nothing above the threshold; a failing embeddings endpoint leaves nothing."""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent.knowledge.documents import Citation, KnowledgeBases, Progress, chunks, parse
from agent.llm.embeddings import HashEmbedder, OpenAIEmbedder
from agent.llm.fakes.server import FakeOpenAIServer
from core.errors import EmbeddingsUnavailableError, InvalidArgumentError, RequestTooLargeError
from records.knowledge.items import Scope
from stores.knowledge.base import KnowledgeStore
from tests.contract.knowledge_backends import BACKENDS, knowledge_store

MARKDOWN = b"""# Returns policy

Customers may return any product within 30 days of delivery for a full refund.
Refunds are paid to the original payment method within five business days.

## Exceptions

Opened software and gift cards cannot be returned.
"""

HTML = b"""<html><head><title>Shipping</title><style>p {color: red}</style>
<script>alert('not text')</script></head><body>
<h1>Shipping times</h1>
<p>Standard shipping to Portugal takes three to five working days.</p>
<p>Express shipping arrives the next working day when ordered before noon.</p>
</body></html>"""

PDF_TEXT = [
    "Warranty: every X200 router carries a warranty of 24 months.",
    "The warranty covers hardware faults but not damage from lightning.",
]


def tiny_pdf(lines: list[str]) -> bytes:
    """A one-page PDF whose page shows `lines` in Helvetica (a minimal PDF writer)."""
    text = (
        "BT /F1 12 Tf 72 720 Td 14 TL "
        + " ".join(
            "(" + line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ") Tj T*"
            for line in lines
        )
        + " ET"
    )
    stream = zlib.compress(text.encode("latin-1"))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


@pytest.fixture(params=BACKENDS)
async def store(
    request: pytest.FixtureRequest, tmp_path: Path, pgvector_socket: str
) -> AsyncIterator[KnowledgeStore]:
    async with knowledge_store(request.param, tmp_path, pgvector_socket) as made:
        yield made


def bases(store: KnowledgeStore, **options: object) -> KnowledgeBases:
    settings: dict[str, object] = {"chunk_tokens": 20, "overlap": 4, "threshold": 0.3}
    return KnowledgeBases(store, HashEmbedder(256), **{**settings, **options})  # type: ignore[arg-type]


def test_each_format_is_parsed_to_its_text() -> None:
    assert "30 days of delivery" in parse(MARKDOWN, "text/markdown")
    html = parse(HTML, "text/html")
    assert "three to five working days" in html
    assert "alert" not in html
    assert "color" not in html
    pdf = parse(tiny_pdf(PDF_TEXT), "application/pdf")
    assert "24 months" in pdf
    with pytest.raises(InvalidArgumentError, match="not a readable PDF"):
        parse(b"%PDF-1.4 broken", "application/pdf")
    with pytest.raises(InvalidArgumentError, match="media_type"):
        parse(b"x", "image/png")


def test_chunks_overlap_and_never_lose_a_word() -> None:
    words = [f"w{n}" for n in range(25)]
    made = list(chunks(" ".join(words), 10, 3))
    assert [c.split() for c in made] == [words[0:10], words[7:17], words[14:24], words[21:25]]
    assert list(chunks("a b", 10, 3)) == ["a b"]
    assert list(chunks("", 10, 3)) == []


async def test_a_question_cites_the_right_document_and_chunk(store: KnowledgeStore) -> None:
    kb = bases(store)
    seen: list[Progress] = []

    async def progress(step: Progress) -> None:
        seen.append(step)

    ids = {}
    for name, content, media in (
        ("returns", MARKDOWN, "text/markdown"),
        ("shipping", HTML, "text/html"),
        ("warranty", tiny_pdf(PDF_TEXT), "application/pdf"),
    ):
        ids[name], count = await kb.add_document(
            "acme", "support", content, media, progress=progress
        )
        assert count >= 1
    assert seen[-1].done
    assert seen[-1].chunks_done == count

    hits = await kb.search("acme", ["support"], "How many months is the X200 router warranty?")
    assert hits
    top = Citation.of(hits[0])
    assert (top.knowledge_base_id, top.document_id, top.chunk_index) == (
        "support",
        ids["warranty"],
        0,
    )
    assert "24 months" in hits[0].item.text
    hits = await kb.search("acme", ["support"], "How long does standard shipping to Portugal take?")
    assert Citation.of(hits[0]).document_id == ids["shipping"]

    off_topic = "Which penguin species breed on Antarctic sea ice?"
    assert await kb.search("acme", ["support"], off_topic, threshold=0.7) == []
    assert await kb.search("globex", ["support"], "X200 router warranty") == []  # other tenant
    assert await kb.search("acme", ["other-kb"], "X200 router warranty") == []

    assert await kb.delete_document("acme", ids["warranty"]) >= 1
    hits = await kb.search("acme", ["support"], "How many months is the X200 router warranty?")
    assert all(h.item.document_id != ids["warranty"] for h in hits)


async def test_a_failing_endpoint_leaves_no_chunk_of_the_document(store: KnowledgeStore) -> None:
    long_text = " ".join(f"word{n}" for n in range(20 * 600)).encode()  # > 2 batches
    async with FakeOpenAIServer(embedding_dimensions=256) as llm:
        embedder = OpenAIEmbedder("fake-embedding", 256, base_url=llm.base_url, max_attempts=1)
        kb = KnowledgeBases(store, embedder, chunk_tokens=20, overlap=0)
        calls = 0

        async def fail_later(step: Progress) -> None:
            nonlocal calls
            calls += 1
            llm.embeddings.fail_status = 503  # the next batch fails

        with pytest.raises(EmbeddingsUnavailableError):
            await kb.add_document("acme", "kb", long_text, "text/plain", progress=fail_later)
        assert calls == 1  # one batch was stored before the failure
        assert await store.count(Scope("acme", "chunk")) == 0
        llm.embeddings.fail_status = 0
        wrong = OpenAIEmbedder("fake-embedding", 256, base_url=llm.base_url, max_attempts=1)
        llm.embeddings.dimensions = 128  # the endpoint answers vectors of the wrong size
        with pytest.raises(EmbeddingsUnavailableError, match="128 dimensions"):
            await KnowledgeBases(store, wrong).add_document("acme", "kb", b"hello", "text/plain")
        assert await store.count(Scope("acme", "chunk")) == 0
        await embedder.close()
        await wrong.close()


async def test_a_document_over_the_cap_is_refused(store: KnowledgeStore) -> None:
    with pytest.raises(RequestTooLargeError):
        await bases(store, max_document_bytes=1024).add_document(
            "acme", "kb", b"x" * 2048, "text/plain"
        )
