"""Artifacts through the real server, auth on, default deny, and the scripted model: the
tools write and read them under grants, the events and `GetTask` show them, `GetArtifact`
reads them for the task's tenant only."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path

import pytest

from agentd.v1 import tasks_pb2, tools_pb2
from agentd_client import errors as client_errors
from agentd_client.client import to_python
from clients import cli as client_cli
from tests.integration.harness import assert_well_formed, final, harness, of_kind
from tests.integration.trust import trusted

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING


def _write(name: str, content: str, **more: str) -> dict[str, object]:
    return {"name": "write_artifact", "arguments": {"name": name, "content": content, **more}}


async def test_a_task_writes_versions_reads_them_and_only_its_tenant_sees_them(
    tmp_path: Path,
) -> None:
    replies = [
        {"tool_calls": [_write("report.md", "# v1", media_type="text/markdown")]},
        {
            "tool_calls": [
                _write("report.md", "# v2, longer", media_type="text/markdown"),
                _write("big.txt", "x" * 65),
            ]
        },
        {
            "tool_calls": [
                {"name": "read_artifact", "arguments": {"name": "report.md", "version": 1}}
            ]
        },
        {"text": "The report is in report.md."},
    ]
    async with trusted(tmp_path, replies, artifact_max_bytes=64) as t:
        await t.grant("acme", "principal:alice", "category:artifacts", "write")
        alice = await t.client("acme", "alice")
        events = [e async for e in alice.execute("write a report", mode=FC)]
        assert_well_formed(events)
        task_id = events[0].task_id

        updates = of_kind(events, "artifact_updated")
        assert [
            (u.name, u.version, u.media_type, u.size_bytes, u.writer_task_id) for u in updates
        ] == [
            ("report.md", 1, "text/markdown", 4, task_id),
            ("report.md", 2, "text/markdown", 12, task_id),
        ]
        finished = {(f.tool_name, f.call_id): f for f in of_kind(events, "tool_call_finished")}
        oversize = [f for f in finished.values() if f.HasField("error")]
        assert len(oversize) == 1  # refused as an observation; the task went on
        assert "65 bytes" in oversize[0].error.message
        assert "AGENTD_ARTIFACT_MAX_BYTES" in oversize[0].error.message
        read = next(f for (name, _), f in finished.items() if name == "read_artifact")
        assert to_python(read.result)["content"] == "# v1"
        assert "# v1" in str(t.llm.requests[3]["messages"][-1]["content"])
        answer = final(events)
        assert [(a.name, a.version, a.media_type, a.size_bytes) for a in answer.artifacts] == [
            ("report.md", 2, "text/markdown", 12)
        ]

        task = await alice.get_task(task_id)
        summaries = [
            (a.name, a.version, a.media_type, a.size_bytes, a.writer_task_id)
            for a in task.artifacts
        ]
        assert summaries == [("report.md", 2, "text/markdown", 12, task_id)]
        assert task.artifacts[0].update_time.seconds > 0

        latest = await alice.get_artifact(task_id, "report.md")
        assert (latest.version, latest.content, latest.text, latest.is_text) == (
            2,
            b"# v2, longer",
            "# v2, longer",
            True,
        )
        first = await alice.get_artifact(task_id, "report.md", 1)
        assert (first.version, first.text) == (1, "# v1")
        with pytest.raises(client_errors.ArtifactNotFoundError):
            await alice.get_artifact(task_id, "report.md", 3)
        with pytest.raises(client_errors.ArtifactNotFoundError):
            await alice.get_artifact(task_id, "big.txt")  # refused: never written
        with pytest.raises(client_errors.InvalidArgumentError) as bad:
            await alice.get_artifact(task_id, "../etc/passwd")
        assert bad.value.field_violations[0].field == "name"

        # Another tenant: the task does not exist for it, so neither does the artifact.
        mallory = await t.client("globex", "mallory", "admin")
        with pytest.raises(client_errors.TaskNotFoundError):
            await mallory.get_artifact(task_id, "report.md")
        with pytest.raises(client_errors.TaskNotFoundError):
            await mallory.get_task(task_id)


async def test_the_tools_follow_grants_levels_and_refuse_bad_content(tmp_path: Path) -> None:
    replies = [
        {"tool_calls": [_write("notes.txt", "hello")]},
        {"text": "could not write"},
    ]
    async with trusted(tmp_path, replies) as t:
        await t.grant("acme", "principal:reader", "category:artifacts", "read")
        reader = await t.client("acme", "reader")
        listed = {tool.name: tool for tool in await reader.list_tools()}
        assert list(listed) == ["read_artifact"]  # write_artifact needs WRITE
        assert listed["read_artifact"].required_permission == tools_pb2.PERMISSION_LEVEL_READ
        events = [e async for e in reader.execute("take notes", mode=FC)]
        refused = of_kind(events, "tool_call_finished")[0]
        assert "not available to this task" in refused.error.message
        assert of_kind(events, "artifact_updated") == []
        records = await t.tool_records("acme")
        assert [(r.tool_name, r.decision) for r in records] == [("write_artifact", "denied")]

        await t.grant("acme", "principal:writer", "category:artifacts", "write")
        writer = await t.client("acme", "writer")
        for arguments, field, problem in [
            ({"name": "a/b", "content": "x"}, "arguments.name", "does not match"),
            ({"name": "x", "content": "{bad", "format": "json"}, "arguments.content", "JSON"),
            ({"name": "x", "content": "nul\x00", "format": "text"}, "arguments.content", "NUL"),
            ({"name": "x", "content": "!!", "format": "base64"}, "arguments.content", "base64"),
            ({"name": "x", "content": "x", "media_type": "Text/Plain"}, "arguments.media_type",
             "media type"),
            ({"name": "x", "content": "x", "format": "text", "media_type": "image/png"},
             "arguments.content", "not a text type"),
        ]:  # fmt: skip
            with pytest.raises(client_errors.InvalidArgumentError) as bad:
                await writer.call_tool("write_artifact", arguments)
            assert bad.value.field_violations[0].field == field, arguments
            assert problem in bad.value.field_violations[0].description, arguments
        # Valid arguments outside a task: nothing to write into.
        outside = await writer.call_tool(
            "write_artifact",
            {"name": "x", "content": base64.b64encode(b"\x00\x01").decode(), "format": "base64"},
        )
        assert "inside a task only" in outside.error.message


async def test_the_cli_lists_gets_and_prints_artifact_events(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replies = [
        {"tool_calls": [_write("data.json", '{"total": 5}', format="json")]},
        {"tool_calls": [_write("data.json", '{"total": 6}', format="json")]},
        {"text": "see data.json"},
    ]
    async with harness(tmp_path, replies) as h:
        events = await h.run("count", mode=FC)
        task_id = events[0].task_id
        capsys.readouterr()

        def cli(*argv: str) -> str:
            assert client_cli.main([*argv, "--address", h.running.address]) == 0
            return capsys.readouterr().out

        assert await asyncio.to_thread(cli, "artifact", "get", task_id, "data.json") == (
            '{"total": 6}'
        )
        old = await asyncio.to_thread(
            cli, "artifact", "get", task_id, "data.json", "--version", "1"
        )
        assert old == '{"total": 5}'
        listed = await asyncio.to_thread(cli, "artifact", "list", task_id)
        assert listed == f"data.json  v2  application/json  12 bytes  by {task_id}\n"
        shown = await asyncio.to_thread(cli, "task", task_id)
        assert f"artifact data.json  v2  application/json  12 bytes  by {task_id}" in shown
        printed = await asyncio.to_thread(cli, "events", task_id)
        updates = [line for line in printed.splitlines() if "artifact_updated" in line]
        assert [line.split("artifact_updated")[1].strip() for line in updates] == [
            f"data.json v1 (application/json, 12 bytes) by {task_id}",
            f"data.json v2 (application/json, 12 bytes) by {task_id}",
        ]
        assert "final_answer        \nsee data.json\n[artifact data.json v2]\n" in printed
        target = tmp_path / "out.json"
        await asyncio.to_thread(
            cli, "artifact", "get", task_id, "data.json", "--output", str(target)
        )
        assert target.read_bytes() == b'{"total": 6}'
        missing = ["artifact", "get", task_id, "nope", "--address", h.running.address]
        assert await asyncio.to_thread(client_cli.main, missing) == 1
        assert "ARTIFACT_NOT_FOUND" in capsys.readouterr().err
