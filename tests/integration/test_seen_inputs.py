"""A task given a PNG and a PDF as input parts, through the real server and the fake model
over HTTP: a model that sees images receives the PNG as an image part, byte for byte (its
sha256), and the PDF as text; both are artifacts of the task; a model that does not see
images gets a note naming the PNG instead. A CSV goes as its text, a file of another type
as a note naming it.

The parts are kept as artifacts here and the task started through the engine with
`TaskRequest.parts` (references), as the server's intake does before it starts a task."""

from __future__ import annotations

import asyncio
import hashlib
import io
from pathlib import Path

import pytest
from PIL import Image

from core.identity import CallContext
from records.execution import ExecutionMode
from records.parts import InputPart
from records.requests import TaskRequest
from records.tasks import Task, TaskStatus
from tests.contract.test_knowledge_bases import PDF_TEXT, tiny_pdf
from tests.integration.harness import Harness, harness

TASK_ID = "task-with-parts"


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (800, 600), (200, 30, 30)).save(out, "PNG")
    return out.getvalue()


async def _run_with_parts(h: Harness, monkeypatch: pytest.MonkeyPatch) -> tuple[Task, bytes]:
    png, pdf = _png(), tiny_pdf(PDF_TEXT)
    call = CallContext()
    tenant = call.principal.tenant
    artifacts = h.server.durable.artifacts
    parts = []
    for name, media_type, data, size in (
        ("photo.png", "image/png", png, (800, 600)),
        ("contract.pdf", "application/pdf", pdf, (0, 0)),
        ("data.csv", "text/csv", b"a,b\n1,2\n", (0, 0)),
        ("blob.bin", "application/octet-stream", b"\x00\x01", (0, 0)),
    ):
        await artifacts.write(tenant, TASK_ID, name, media_type, data, TASK_ID)
        digest = hashlib.sha256(data).hexdigest()
        parts.append(InputPart(name, media_type, b"", len(data), digest, "", *size))
    monkeypatch.setattr("agent.engine.new_task_id", lambda: TASK_ID)
    request = TaskRequest(
        "Describe the photo and sum up the contract.",
        mode=ExecutionMode.FUNCTION_CALLING,
        parts=tuple(parts),
    )
    engine = h.server.engine
    await engine.start(request, call)
    async with asyncio.timeout(20):
        async for _ in engine.events(tenant, TASK_ID):  # to the task's end
            pass
    return await engine.find(tenant, TASK_ID), png


async def test_a_seeing_model_receives_the_image_as_an_image_part_and_the_pdf_as_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with harness(
        tmp_path, [{"text": "A red photo; the contract."}], llm_image_models="fake-model"
    ) as h:
        task, png = await _run_with_parts(h, monkeypatch)
        assert task.status is TaskStatus.COMPLETED, task.failure
        assert len(h.llm.requests) == 1
        [image] = h.llm.images[0]
        assert (image.media_type, image.size, image.role) == ("image/png", len(png), "user")
        assert image.sha256 == hashlib.sha256(png).hexdigest()  # byte for byte
        text = h.llm.received_text(0)
        assert all(line in text for line in PDF_TEXT)  # the PDF's text, read by pypdf
        assert "[document contract.pdf (application/pdf)]" in text
        assert "does not see images" not in text
        assert "[document data.csv (text/csv)]\na,b\n1,2\n\n[end of data.csv]" in text
        assert "[file blob.bin (application/octet-stream, 2 bytes): kept as an artifact" in text
        held = await h.server.durable.artifacts.latest("default", TASK_ID)
        assert sorted((a.name, a.version) for a in held) == [
            ("blob.bin", 1),
            ("contract.pdf", 1),
            ("data.csv", 1),
            ("photo.png", 1),
        ]


async def test_a_model_without_images_gets_a_note_naming_the_image(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with harness(tmp_path, [{"text": "I cannot see it."}]) as h:
        task, _ = await _run_with_parts(h, monkeypatch)
        assert task.status is TaskStatus.COMPLETED, task.failure
        assert h.llm.images == [[]]  # no image part reached the model
        text = h.llm.received_text(0)
        assert (
            "[image photo.png (image/png, 800×600) — this model does not see images; "
            "read_artifact can return it]"
        ) in text
        assert all(line in text for line in PDF_TEXT)
