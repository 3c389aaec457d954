"""Ingestion failures, in process and on SQLite (the runner's suite's setup): a corrupt
PDF fails its job INVALID_ARGUMENT; a document without text is refused; an unexpected
error gives the job and the caller a generic message with the call's trace id, never the
error's own text (a database error holds its statement and parameters); a base's
deletion takes its jobs along; a base id with a trailing newline is refused."""

from __future__ import annotations

import pypdf
import pytest

from core.errors import InternalError, InvalidArgumentError
from core.tracing import reset_call_trace_id, set_call_trace_id
from records.knowledge.items import EmbeddingSpace, Item, Vectors
from tests.contract.test_ingestion_runner import ADMIN, OLD, Setup, setup
from tests.contract.test_knowledge_bases import PDF_TEXT, tiny_pdf

__all__ = ["setup"]  # the fixture, shared with the runner's suite

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"


async def test_a_corrupt_pdf_fails_its_job_as_invalid_argument(
    setup: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise pypdf.errors.LimitReachedError("limit reached while decompressing")

    monkeypatch.setattr(pypdf, "PdfReader", broken)
    with pytest.raises(InvalidArgumentError, match="not a readable PDF"):
        await setup.admin.add_document(ADMIN, "kb", tiny_pdf(PDF_TEXT), "application/pdf", "x")
    [failed] = (await setup.admin.list_jobs(ADMIN, "kb", size=9)).items
    assert (failed.state, failed.error_reason) == ("FAILED", "INVALID_ARGUMENT")
    assert "is not a readable PDF (LimitReachedError" in failed.error
    assert (await setup.admin.list_documents(ADMIN, "kb", size=9)).items == ()


@pytest.mark.parametrize("content", [b"", b"  \n\t ", b"<html><script>x()</script></html>"])
async def test_a_document_without_text_is_refused(setup: Setup, content: bytes) -> None:
    media_type = "text/html" if content.startswith(b"<") else "text/plain"
    with pytest.raises(InvalidArgumentError, match="content: has no text to index"):
        await setup.admin.add_document(ADMIN, "kb", content, media_type, "empty")
    [failed] = (await setup.admin.list_jobs(ADMIN, "kb", size=9)).items
    assert (failed.state, failed.error_reason) == ("FAILED", "INVALID_ARGUMENT")
    assert (await setup.admin.list_documents(ADMIN, "kb", size=9)).items == ()
    assert await setup.chunks() == 0


async def test_an_unexpected_error_leaves_only_the_trace_id_to_quote(
    setup: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "INSERT INTO knowledge_items (text) VALUES ('the card number 4111')"

    async def failing(items: list[Item], vectors: Vectors, space: EmbeddingSpace) -> None:
        raise RuntimeError(secret)

    monkeypatch.setattr(setup.store, "add", failing)
    token = set_call_trace_id(TRACE)  # as the server's tracing does
    try:
        with pytest.raises(InternalError) as raised:
            await setup.admin.add_document(ADMIN, "kb", OLD, "text/plain", "x")
    finally:
        reset_call_trace_id(token)
    assert raised.value.trace_id == TRACE
    assert secret not in str(raised.value)
    [failed] = (await setup.admin.list_jobs(ADMIN, "kb", size=9)).items
    assert (failed.state, failed.error_reason) == ("FAILED", "INTERNAL")
    assert failed.error == f"internal error; quote trace id {TRACE} when reporting it"
    assert (await setup.admin.list_documents(ADMIN, "kb", size=9)).items == ()


async def test_a_deleted_base_s_jobs_do_not_come_back_with_a_new_base(setup: Setup) -> None:
    await setup.admin.add_document(ADMIN, "kb", OLD, "text/plain", "old.txt")
    assert len((await setup.admin.list_jobs(ADMIN, "kb", size=9)).items) == 1
    await setup.admin.delete(ADMIN, "kb")
    await setup.admin.create(ADMIN, "kb", "again")
    assert (await setup.admin.list_jobs(ADMIN, "kb", size=9)).items == ()


async def test_a_base_id_with_a_trailing_newline_is_refused(setup: Setup) -> None:
    with pytest.raises(InvalidArgumentError, match="knowledge_base_id"):
        await setup.admin.create(ADMIN, "faq\n", "")
    assert [b.knowledge_base_id for b in (await setup.admin.list_bases(ADMIN, size=9)).items] == [
        "kb"
    ]
