"""A task given a PNG and a PDF as input parts through Execute, on the real server and the
fake model over HTTP: a model that sees images receives the PNG as an image part, byte
for byte (its sha256), and the PDF as text; both are artifacts of the task; a model that
does not see images gets a note naming the PNG instead. A CSV goes as its text, a file of
another type as a note naming it."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

from PIL import Image

from agentd.v1 import tasks_pb2
from agentd_client import Part
from tests.contract.test_knowledge_bases import PDF_TEXT, tiny_pdf
from tests.integration.harness import Harness, harness


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (800, 600), (200, 30, 30)).save(out, "PNG")
    return out.getvalue()


async def _run_with_parts(h: Harness) -> tuple[tasks_pb2.Task, bytes]:
    png = _png()
    parts = [
        Part("image/png", png, name="photo.png"),
        Part("application/pdf", tiny_pdf(PDF_TEXT), name="contract.pdf"),
        Part("text/csv", b"a,b\n1,2\n", name="data.csv"),
        Part("application/octet-stream", b"\x00\x01", name="blob.bin"),
    ]
    events = await h.run(
        "Describe the photo and sum up the contract.",
        mode=tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING,
        parts=parts,
    )
    task_id = events[0].task_id
    return await h.client.get_task(task_id), png


async def test_a_seeing_model_receives_the_image_as_an_image_part_and_the_pdf_as_text(
    tmp_path: Path,
) -> None:
    async with harness(
        tmp_path, [{"text": "A red photo; the contract."}], llm_image_models="fake-model"
    ) as h:
        task, png = await _run_with_parts(h)
        assert task.status == tasks_pb2.TASK_STATUS_COMPLETED, task.error
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
        held = await h.server.durable.artifacts.latest("default", task.task_id)
        assert sorted((a.name, a.version) for a in held) == [
            ("blob.bin", 1),
            ("contract.pdf", 1),
            ("data.csv", 1),
            ("photo.png", 1),
        ]


async def test_a_model_without_images_gets_a_note_naming_the_image(
    tmp_path: Path,
) -> None:
    async with harness(tmp_path, [{"text": "I cannot see it."}]) as h:
        task, _ = await _run_with_parts(h)
        assert task.status == tasks_pb2.TASK_STATUS_COMPLETED, task.error
        assert h.llm.images == [[]]  # no image part reached the model
        text = h.llm.received_text(0)
        assert (
            "[image photo.png (image/png, 800×600) — this model does not see images; "
            "read_artifact can return it]"
        ) in text
        assert all(line in text for line in PDF_TEXT)
