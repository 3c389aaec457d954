"""Files and images given with a task's input, through the real server (auth on) and the
Python client: kept as artifacts of the task before it runs, named in its events and on
`GetTask`, read back whole with ReadArtifact; bad parts refused naming the part with
nothing stored; URL parts fetched from 127.0.0.1 and refused for a refused address before
any connection; the official A2A client's 1 MB file part arrives byte for byte."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import sqlite3
from pathlib import Path

import httpx
import pytest

from agentd.v1 import tasks_pb2
from agentd_client import Part, SyncAgentClient
from agentd_client import errors as client_errors
from clients import cli as client_cli
from tests.helpers import http_server, png_bytes
from tests.integration.harness import assert_well_formed, harness, of_kind
from tests.integration.openai.serving import free_port
from tests.integration.test_a2a import a2a_server, key, official_client, spec_of
from tests.integration.trust import trusted

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


def _stored_artifacts(tmp_path: Path) -> int:
    with sqlite3.connect(tmp_path / "agentd.db") as db:
        (count,) = db.execute("SELECT count(*) FROM artifacts").fetchone()
    return int(count)


async def test_parts_are_artifacts_of_the_task_named_in_its_events(tmp_path: Path) -> None:
    png = png_bytes(0, 0, pad_to=300_000)
    async with trusted(tmp_path, [{"text": "A red square and a contract."}]) as t:
        alice = await t.client("acme", "alice")
        parts = [Part("image/png", png), Part("application/pdf", PDF, name="contract.pdf")]
        events = [e async for e in alice.execute("Describe these", mode=FC, parts=parts)]
        assert_well_formed(events)
        task_id = events[0].task_id
        assert [e.WhichOneof("payload") for e in events[:3]] == [
            "status_changed",
            "artifact_updated",
            "artifact_updated",
        ]
        updates = [
            (
                e.artifact_updated.name,
                e.artifact_updated.version,
                e.artifact_updated.media_type,
                e.artifact_updated.size_bytes,
            )
            for e in events[1:3]
        ]
        assert updates == [
            ("input-0.png", 1, "image/png", len(png)),
            ("contract.pdf", 1, "application/pdf", len(PDF)),
        ]
        assert len(of_kind(events, "artifact_updated")) == 2
        task = await alice.get_task(task_id)
        assert [(p.name, p.size_bytes) for p in task.input_parts] == [
            ("input-0.png", len(png)),
            ("contract.pdf", len(PDF)),
        ]
        [listed] = (await alice.list_tasks()).tasks
        assert [p.name for p in listed.input_parts] == ["input-0.png", "contract.pdf"]

        chunks = [c async for c in alice.read_artifact(task_id, "input-0.png", chunk_bytes=65536)]
        assert [c.offset for c in chunks] == list(range(0, len(png), 65536))
        assert b"".join(c.data for c in chunks) == png
        assert [c.last for c in chunks] == [False] * (len(chunks) - 1) + [True]
        assert (chunks[0].size_bytes, chunks[0].media_type) == (len(png), "image/png")
        assert chunks[-1].sha256 == hashlib.sha256(png).hexdigest()

        # A download resumes after what the file already holds, and checks the digest.
        target = tmp_path / "copy.png"
        target.write_bytes(png[:1000])
        assert await alice.download_artifact(task_id, "input-0.png", target) == len(png)
        assert target.read_bytes() == png
        wrong = tmp_path / "wrong.pdf"
        wrong.write_bytes(b"%PDF-9")  # not the artifact's start
        with pytest.raises(ValueError, match="sha256 differs"):
            await alice.download_artifact(task_id, "contract.pdf", wrong, version=1)
        assert not wrong.exists()


async def test_read_artifact_offsets_bounds_and_who_sees_what(tmp_path: Path) -> None:
    data = b"x,y\n" * 6000  # 24,000 bytes: as bytes and as text, over 60,000 - 16 KiB
    async with trusted(tmp_path, [{"text": "ok"}], max_message_bytes=60_000) as t:
        alice = await t.client("acme", "alice")
        parts = [Part("text/csv", data)]
        task = await alice.start_task("rows", mode=FC, parts=parts, idempotency_key="k1")
        name = "input-0.csv"
        # A retry gets the same task and writes nothing again; other parts are another request.
        again = await alice.start_task("rows", mode=FC, parts=parts, idempotency_key="k1")
        assert again.task_id == task.task_id
        with pytest.raises(client_errors.IdempotencyConflictError):
            await alice.start_task(
                "rows", mode=FC, parts=[Part("text/csv", data + b"z")], idempotency_key="k1"
            )
        with pytest.raises(client_errors.ArtifactTooLargeError) as large:
            await alice.get_artifact(task.task_id, name)
        assert "ReadArtifact" in str(large.value)
        assert large.value.metadata == {"name": name, "size": str(len(data))}
        whole = [c async for c in alice.read_artifact(task.task_id, name)]
        assert b"".join(c.data for c in whole) == data
        tail = [c async for c in alice.read_artifact(task.task_id, name, offset=23_000)]
        assert [(c.offset, c.data, c.last) for c in tail] == [(23_000, data[23_000:], True)]
        assert tail[0].sha256 == hashlib.sha256(data).hexdigest()
        past = [c async for c in alice.read_artifact(task.task_id, name, offset=10**9)]
        assert [(c.offset, c.data, c.last) for c in past] == [(len(data), b"", True)]
        assert past[0].sha256 == hashlib.sha256(data).hexdigest()
        for chunk_bytes in (1, 4095, 1024 * 1024 + 1):
            with pytest.raises(client_errors.InvalidArgumentError) as bad:
                [c async for c in alice.read_artifact(task.task_id, name, chunk_bytes=chunk_bytes)]
            assert bad.value.field_violations[0].field == "chunk_bytes"
        with pytest.raises(client_errors.ArtifactNotFoundError):
            [c async for c in alice.read_artifact(task.task_id, "nope.csv")]
        with pytest.raises(client_errors.ArtifactNotFoundError):  # the retry wrote no v2
            [c async for c in alice.read_artifact(task.task_id, name, version=2)]
        with pytest.raises(client_errors.TaskNotFoundError):
            [c async for c in alice.read_artifact("task_000000000000000000000000", name)]
        mallory = await t.client("globex", "mallory", "admin")
        with pytest.raises(client_errors.TaskNotFoundError):
            [c async for c in mallory.read_artifact(task.task_id, name)]


async def test_bad_parts_are_refused_naming_the_part_and_nothing_is_stored(
    tmp_path: Path,
) -> None:
    png = png_bytes(2, 2)
    cases = [
        ([Part("text/plain", b"ok"), Part("image/jpeg", png)], "parts[1].data", "not JPEG"),
        ([Part("image/png", b"\x89PNG broken")], "parts[0].data", "not an image"),
        ([Part("application/pdf", b"MZ\x90")], "parts[0].data", "not a PDF"),
        ([Part("text/plain", b"\xff\xfe")], "parts[0].data", "UTF-8"),
        ([Part("text/plain", b"x" * 2049)], "parts[0].data", "at most 2,048"),
        ([Part("text/plain", b"x", name="a/b")], "parts[0].name", "letters, digits"),
        ([Part("text/plain", b"x", name="a")] * 2, "parts[1].name", "earlier part"),
        ([Part("TEXT", b"x")], "parts[0].media_type", "media type"),
        ([Part("text/plain", b"x")] * 17, "parts", "at most 16"),
    ]
    async with trusted(tmp_path, [], input_part_max_bytes=2048) as t:
        alice = await t.client("acme", "alice")
        for parts, field, problem in cases:
            with pytest.raises(client_errors.InvalidArgumentError) as bad:
                await alice.start_task("look", mode=FC, parts=parts)
            fields = {v.field: v.description for v in bad.value.field_violations}
            assert problem in fields.get(field, ""), (field, fields)
        # A steer carries text: parts under the STEER policy would be lost, so they are refused.
        talk = await alice.create_conversation("files")
        with pytest.raises(client_errors.InvalidArgumentError) as steered:
            await alice.start_task(
                "and this?",
                mode=FC,
                parts=[Part("text/plain", b"x")],
                conversation_id=talk.conversation_id,
                busy_policy="steer",
            )
        assert steered.value.field_violations[0].field == "parts"
        assert list((await alice.list_tasks()).tasks) == []
    assert _stored_artifacts(tmp_path) == 0


async def test_url_parts_are_fetched_or_refused_before_any_connection(tmp_path: Path) -> None:
    with http_server() as base:
        async with trusted(tmp_path, [{"text": "a tiny image"}]) as t:
            alice = await t.client("acme", "alice")
            # 10.255.255.1 is never connected to: the refusal comes from the address itself.
            refused = Part.from_url("http://10.255.255.1/secret.png", name="secret.png")
            with pytest.raises(client_errors.DestinationNotAllowedError) as denied:
                await alice.start_task("look", mode=FC, parts=[refused])
            assert "parts[0] (secret.png)" in str(denied.value)
            with pytest.raises(client_errors.InputPartUnavailableError) as missing:
                await alice.start_task(
                    "look", mode=FC, parts=[Part.from_url(f"{base}/status/404", "text/plain")]
                )
            assert missing.value.metadata["part"] == "parts[0]"
            assert "answered 404" in str(missing.value)
            assert list((await alice.list_tasks()).tasks) == []

            task = await alice.start_task("look", mode=FC, parts=[Part.from_url(f"{base}/png")])
            assert [(p.name, p.media_type) for p in task.input_parts] == [
                ("input-0.png", "image/png")
            ]
            got = await alice.get_artifact(task.task_id, "input-0.png")
            assert got.content == png_bytes(4, 3)


async def test_a_retry_with_a_url_part_gets_its_task_back_without_fetching_it(
    tmp_path: Path,
) -> None:
    async with trusted(tmp_path, [{"text": "a tiny image", "repeat": -1}]) as t:
        alice = await t.client("acme", "alice")
        with http_server() as base:
            parts = [Part.from_url(f"{base}/png")]
            task = await alice.start_task("look", mode=FC, parts=parts, idempotency_key="u1")
        # The URL no longer answers: the retry is matched by its key and the URL, not by
        # fetching it again (which would fail, or differ).
        again = await alice.start_task("look", mode=FC, parts=parts, idempotency_key="u1")
        assert again.task_id == task.task_id
        assert len((await alice.list_tasks()).tasks) == 1


@pytest.mark.parametrize("binding", ["GRPC", "JSONRPC"])
async def test_the_official_a2a_client_sends_a_1_mb_file_part_whole(
    tmp_path: Path, binding: str
) -> None:
    png = png_bytes(0, 0, pad_to=1_000_000)
    source = tmp_path / "big.png"
    source.write_bytes(png)
    async with a2a_server(tmp_path, [{"text": "A noisy picture."}]) as t:
        spec = await spec_of(t, binding, "file_part", "helper")
        spec.update(file=str(source), media_type="image/png", filename="big.png")
        found = await official_client(spec)
        assert found["state"] == "TASK_STATE_COMPLETED", found
        alice = await t.client("acme", "alice")
        chunks = [c async for c in alice.read_artifact(found["id"], "big.png")]
    content = b"".join(c.data for c in chunks)
    assert len(content) == len(png) >= 1_000_000
    assert (
        chunks[-1].sha256 == hashlib.sha256(png).hexdigest() == hashlib.sha256(content).hexdigest()
    )


async def test_the_cli_gives_parts_and_downloads_artifacts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "rows.csv"
    source.write_bytes(b"a,b\n" * 50_000)
    async with harness(tmp_path, [{"text": "two columns"}]) as h:

        def cli(*argv: str) -> str:
            assert client_cli.main([*argv, "--address", h.running.address]) == 0
            return capsys.readouterr().out

        started = ["exec", "what is in it?", "--part", str(source), "--address", h.running.address]
        assert await asyncio.to_thread(client_cli.main, started) == 0
        task_id = capsys.readouterr().err.split("task ", 1)[1].split()[0]
        target = tmp_path / "copy.csv"
        target.write_bytes(b"stale content, replaced")
        said = await asyncio.to_thread(
            cli, "artifact", "get", task_id, "rows.csv", "--output", str(target)
        )
        assert f"wrote rows.csv (200000 bytes) to {target}\n" in said  # (and the server's logs)
        assert target.read_bytes() == source.read_bytes()
        target.write_bytes(source.read_bytes()[:70_000])  # cut short
        await asyncio.to_thread(
            cli, "artifact", "get", task_id, "rows.csv", "--output", str(target), "--resume"
        )
        assert target.read_bytes() == source.read_bytes()
        printed = await asyncio.to_thread(cli, "artifact", "get", task_id, "rows.csv")
        assert source.read_text() in printed

        # The synchronous client: parts in, chunks and a resumed download out.
        def sync_session() -> tuple[list[int], int, str]:
            with SyncAgentClient(h.running.address, api_key="", timeout=20) as client:
                offsets = [
                    c.offset for c in client.read_artifact(task_id, "rows.csv", chunk_bytes=65536)
                ]
                again = tmp_path / "again.csv"
                again.write_bytes(source.read_bytes()[:5])
                size = client.download_artifact(task_id, "rows.csv", again)
                started = client.start_task("more", parts=[Part.from_path(source, name="more.csv")])
                return offsets, size, started.input_parts[0].name

        offsets, size, name = await asyncio.to_thread(sync_session)
        assert offsets == [0, 65536, 131072, 196608]
        assert size == 200_000
        assert (tmp_path / "again.csv").read_bytes() == source.read_bytes()
        assert name == "more.csv"


async def test_the_openai_doors_take_images_and_files(tmp_path: Path) -> None:
    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "lead.yaml").write_text("id: lead\nmode: function_calling\n")
    port = free_port()
    png = png_bytes(5, 2)
    image = f"data:image/png;base64,{base64.b64encode(png).decode()}"
    pdf = f"data:application/pdf;base64,{base64.b64encode(PDF).decode()}"
    with http_server() as files:
        async with trusted(
            tmp_path,
            [{"text": "Seen.", "repeat": -1}],
            http_address=f"127.0.0.1:{port}",
            http_doors=["openai"],
            agents_dir=agents,
        ) as t:
            token = await key(t, "acme", "alice")
            alice = await t.client("acme", "alice")
            async with httpx.AsyncClient(
                base_url=f"http://127.0.0.1:{port}/v1",
                headers={"authorization": f"Bearer {token}"},
                timeout=20,
            ) as http:
                content = [
                    {"type": "input_text", "text": "What is in these?"},
                    {"type": "input_image", "image_url": image},
                    {"type": "input_file", "filename": "deal.pdf", "file_data": pdf},
                ]
                answered = await http.post(
                    "/responses",
                    json={"model": "agent:lead", "input": [{"role": "user", "content": content}]},
                )
                assert answered.status_code == 200, answered.text
                task_id = answered.json()["id"].removeprefix("resp_")
                task = await alice.get_task(task_id)
                assert [(p.name, p.media_type) for p in task.input_parts] == [
                    ("input-0.png", "image/png"),
                    ("deal.pdf", "application/pdf"),
                ]
                assert (await alice.get_artifact(task_id, "input-0.png")).content == png

                chat = [
                    {
                        "role": "user",
                        "content": [
                            {"type": "text", "text": "And this one?"},
                            {"type": "image_url", "image_url": {"url": f"{files}/png"}},
                        ],
                    }
                ]
                answered = await http.post(
                    "/chat/completions", json={"model": "agent:lead", "messages": chat}
                )
                assert answered.status_code == 200, answered.text
                newest = (await alice.list_tasks()).tasks[0]
                assert [(p.name, p.media_type) for p in newest.input_parts] == [
                    ("input-0.png", "image/png")
                ]

                refused = await http.post(
                    "/responses",
                    json={
                        "model": "agent:lead",
                        "input": [
                            {"role": "user", "content": [{"type": "input_image", "file_id": "f"}]}
                        ],
                    },
                )
                assert refused.status_code == 400
                assert refused.json()["error"]["param"] == "input[0].content[0].file_id"
                for content, param, problem in [
                    ([{"type": "input_image", "image_url": pdf}], "image_url", "not an image"),
                    (  # said to be a PNG, holding a PDF: the engine's check refuses it
                        [{"type": "input_image", "image_url": f"data:image/png;base64,{pdf[28:]}"}],
                        "parts[0].data",
                        "not an image of its type",
                    ),
                ]:
                    refused = await http.post(
                        "/responses",
                        json={
                            "model": "agent:lead",
                            "input": [{"role": "user", "content": content}],
                        },
                    )
                    assert refused.status_code == 400, refused.text
                    assert refused.json()["error"]["param"].endswith(param), refused.text
                    assert problem in refused.json()["error"]["message"]
                assert len((await alice.list_tasks()).tasks) == 2
