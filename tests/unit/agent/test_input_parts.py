"""A task's input parts (`agent.inputs`): checked for what they say they are, fetched by
URL under `http_request`'s destination rules, kept as artifacts of the task."""

from __future__ import annotations

import hashlib
import io
import ipaddress

import pytest
from PIL import Image

from agent.inputs.checks import MAX_PARTS, InputLimits, check_parts, default_name
from agent.inputs.fetching import fetch_part, refused_literal
from agent.inputs.keeping import InputParts, announced
from core.errors import DestinationNotAllowedError, InvalidArgumentError
from core.errors.artifacts import InputPartUnavailableError
from core.files import image_facts
from records import events as ev
from records.parts import InputPart
from records.requests import TaskRequest
from records.serialization import dumps, loads
from records.tasks import Task
from stores.artifacts.memory import InMemoryArtifactStore
from tests.helpers import http_server, png_bytes

LOOPBACK = (ipaddress.ip_network("127.0.0.1/32"),)
LIMITS = InputLimits(max_part_bytes=64 * 1024, url_timeout_seconds=2, allowed_networks=LOOPBACK)
PDF = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


def _jpeg() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (2, 5)).save(out, format="JPEG")
    return out.getvalue()


def _fields(error: InvalidArgumentError) -> dict[str, str]:
    return {v.field: v.description for v in error.field_violations}


def test_good_parts_are_measured() -> None:
    png = png_bytes(7, 3)
    parts = check_parts(
        [
            InputPart("shot.png", "image/png", png),
            InputPart("photo.jpg", "image/jpeg", _jpeg()),
            InputPart("contract.pdf", "application/pdf", PDF),
            InputPart("rows.csv", "text/csv", "naïve,1\n".encode()),
        ],
        LIMITS,
    )
    assert [(p.width, p.height) for p in parts] == [(7, 3), (2, 5), (0, 0), (0, 0)]
    assert parts[0].size == len(png)
    assert parts[0].sha256 == hashlib.sha256(png).hexdigest()


def test_every_problem_names_its_part_and_field() -> None:
    png = png_bytes(2, 2)
    with pytest.raises(InvalidArgumentError) as caught:
        check_parts(
            [
                InputPart("a.jpg", "image/jpeg", png),  # a PNG said to be a JPEG
                InputPart("b.png", "image/png", b"\x89PNG\r\n\x1a\n not really"),
                InputPart("c.pdf", "application/pdf", b"<html>"),
                InputPart("d.txt", "text/plain", b"\xff\xfe\xfa"),
                InputPart("e.png", "image/png", b"x" * (LIMITS.max_part_bytes + 1)),
                InputPart("../f", "text/plain", b"x"),
                InputPart("a.jpg", "text/plain", b"x"),  # the first part's name again
                InputPart("h", "Image/PNG", png),
                InputPart("i.bmp", "image/bmp", png),
                InputPart("j.txt", "text/plain", b""),
            ],
            LIMITS,
        )
    fields = _fields(caught.value)
    assert "is a PNG image, not JPEG" in fields["parts[0].data"]
    assert "is not an image of its type (PNG)" in fields["parts[1].data"]
    assert "is not a PDF" in fields["parts[2].data"]
    assert "is not UTF-8 text" in fields["parts[3].data"]
    assert f"at most {LIMITS.max_part_bytes:,}" in fields["parts[4].data"]
    assert "parts[5].name" in fields
    assert fields["parts[6].name"] == "is the name of an earlier part"
    assert "lower case" in fields["parts[7].media_type"]
    assert "is not an image type a task takes" in fields["parts[8].data"]
    assert fields["parts[9].data"] == "is empty"


def test_too_many_parts() -> None:
    parts = [InputPart(f"p{i}.txt", "text/plain", b"x") for i in range(MAX_PARTS + 1)]
    with pytest.raises(InvalidArgumentError) as caught:
        check_parts(parts, LIMITS)
    assert _fields(caught.value) == {"parts": f"has {MAX_PARTS + 1} parts; at most {MAX_PARTS}"}


def test_default_names_carry_their_type_extension() -> None:
    assert default_name(0, "image/png") == "input-0.png"
    assert default_name(3, "text/csv; charset=utf-8") == "input-3.csv"
    assert default_name(1, "application/x-unknown") == "input-1"


@pytest.mark.parametrize(
    "url",
    [
        "http://10.0.0.1/x.png",
        "http://169.254.169.254/latest/meta-data",
        "http://[::ffff:192.168.1.1]/x",
        "http://127.0.0.1:9/x",
    ],
)
def test_a_literal_refused_address_is_refused_without_a_connection(url: str) -> None:
    refused = refused_literal(url, ())
    assert isinstance(refused, DestinationNotAllowedError)


async def test_a_refused_url_part_names_the_part() -> None:
    part = InputPart("x.png", "image/png", source_uri="http://10.1.2.3/x.png")
    # Nothing answers at 10.1.2.3: the refusal comes before any connection is tried.
    with pytest.raises(DestinationNotAllowedError) as caught:
        await fetch_part(part, 2, LOOPBACK, 1000, 0.5)
    assert caught.value.metadata["part"] == "parts[2] (x.png)"
    assert "parts[2] (x.png)" in caught.value.message


async def test_a_url_part_is_fetched_with_its_type() -> None:
    with http_server() as base:
        part = InputPart("", "", source_uri=f"{base}/png")
        inputs = InputParts(InMemoryArtifactStore(), LIMITS)
        prepared = await inputs.prepare(TaskRequest(goal="look", parts=(part,)))
    (got,) = prepared.parts
    assert (got.name, got.media_type, got.width, got.height) == ("input-0.png", "image/png", 4, 3)
    assert got.data == png_bytes(4, 3)
    assert got.source_uri == f"{base}/png"


@pytest.mark.parametrize(
    ("path", "why"),
    [("/status/404", "answered 404"), ("/big", "over 1,000 bytes"), ("/slow=2", "in time")],
)
async def test_a_url_part_that_cannot_be_had_is_unavailable(path: str, why: str) -> None:
    with http_server() as base:
        part = InputPart("x", "text/plain", source_uri=f"{base}{path}")
        with pytest.raises(InputPartUnavailableError) as caught:
            await fetch_part(part, 0, LOOPBACK, 1000, 0.3)
    assert why in caught.value.message
    assert caught.value.part == "parts[0] (x)"


async def test_parts_are_kept_as_artifacts_and_the_task_keeps_references() -> None:
    store = InMemoryArtifactStore()
    inputs = InputParts(store, LIMITS)
    png = png_bytes(3, 3)
    request = await inputs.prepare(
        TaskRequest(
            goal="g",
            parts=(InputPart("", "image/png", png), InputPart("n.pdf", "application/pdf", PDF)),
        )
    )
    task = Task("task_1", "t1", "p", "g")
    task.input_parts = await inputs.keep(task, request.parts)
    assert [p.data for p in task.input_parts] == [b"", b""]
    found = await store.read("t1", "task_1", "input-0.png")
    assert found is not None
    assert (found.content, found.info.version) == (png, 1)
    assert announced(task) == [
        ev.ArtifactUpdated("input-0.png", 1, "image/png", len(png), "task_1"),
        ev.ArtifactUpdated("n.pdf", 1, "application/pdf", len(PDF), "task_1"),
    ]
    # What a store keeps of the task: the references, never the bytes.
    stored = dumps(task)
    assert '"data"' not in stored
    assert loads(stored).input_parts == task.input_parts


def test_a_part_with_bytes_cannot_be_stored_with_its_task() -> None:
    task = Task("task_1", "t1", "p", "g", input_parts=(InputPart("a", "text/plain", b"x"),))
    with pytest.raises(TypeError):
        dumps(task)


def test_the_fingerprint_covers_the_parts_by_digest() -> None:
    one = TaskRequest(goal="g", parts=(InputPart("a", "text/plain", b"x", 1, "d1"),))
    other = TaskRequest(goal="g", parts=(InputPart("a", "text/plain", b"y", 1, "d2"),))
    assert one.fingerprint() != other.fingerprint()
    assert TaskRequest(goal="g").fingerprint() != one.fingerprint()


def test_an_image_of_too_many_pixels_is_refused_from_its_header() -> None:
    # A PNG header saying 100,000 x 100,000 pixels: refused without decoding anything.
    import struct
    import zlib

    small = png_bytes(2, 2)  # its IHDR (at byte 12) rewritten to say 100,000 x 100,000
    ihdr = b"IHDR" + struct.pack(">II", 100_000, 100_000) + small[24:29]
    png = small[:12] + ihdr + struct.pack(">I", zlib.crc32(ihdr)) + small[33:]
    with pytest.raises(InvalidArgumentError) as caught:
        check_parts([InputPart("huge.png", "image/png", png)], LIMITS)
    assert _fields(caught.value) == {"parts[0].data": "has more than 67,108,864 pixels"}


def test_an_image_in_pillow_s_warning_band_is_refused_too() -> None:
    # 10,000 x 9,500 = 95 million pixels: past Pillow's warning (89 million) but short of
    # its error (twice that), which alone refused it; more than MAX_IMAGE_PIXELS.
    import struct
    import zlib

    small = png_bytes(2, 2)
    ihdr = b"IHDR" + struct.pack(">II", 10_000, 9_500) + small[24:29]
    png = small[:12] + ihdr + struct.pack(">I", zlib.crc32(ihdr)) + small[33:]
    with pytest.raises(InvalidArgumentError) as caught:
        check_parts([InputPart("wide.png", "image/png", png)], LIMITS)
    assert _fields(caught.value) == {"parts[0].data": "has 10000×9500 pixels, more than 67,108,864"}
    assert image_facts(png) is None  # nor is a tool's such image shown to a model


def test_every_type_read_as_text_is_checked_to_be_text() -> None:
    # What the model is given as text (agent.seeing) is what intake checks as UTF-8: one
    # answer for both (core.files.is_text), YAML and NDJSON included.
    for media_type in ("application/x-yaml", "application/x-ndjson", "application/atom+xml"):
        with pytest.raises(InvalidArgumentError) as caught:
            check_parts([InputPart("c", media_type, b"\xff\xfe")], LIMITS)
        assert _fields(caught.value) == {"parts[0].data": "is not UTF-8 text (byte 0)"}
