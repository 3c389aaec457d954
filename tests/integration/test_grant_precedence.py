"""The development key's `role:admin *` grant against a narrower grant made with the CLI,
through a real server: the narrower grant decides, its approval holds, its prefix holds."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

import pytest

from agentd.v1 import events_pb2, tasks_pb2
from agentd_client import errors as client_errors
from server.app import _announce_auth
from tests.helpers import ROOT
from tests.integration.harness import assert_well_formed, of_kind
from tests.integration.trust import trusted

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING


def write(path: str, content: str) -> dict[str, object]:
    return {"tool_calls": [{"name": "write_file", "arguments": {"path": path, "content": content}}]}


async def test_a_narrower_grant_is_not_outranked_by_the_development_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replies = [write("secrets.txt", "leak"), write("reports/q3.txt", "q3"), {"text": "filed"}]
    async with trusted(tmp_path, replies) as t:
        await _announce_auth(t.server)  # what `make run` does on a fresh database
        plaintext = re.search(r"AGENTD_API_KEY=(\S+)", capsys.readouterr().out)
        assert plaintext is not None
        (development,) = await t.server.durable.grants.list()
        assert (development.subject, development.tool) == ("role:admin", "*")

        cli = await asyncio.create_subprocess_exec(
            *[sys.executable, "-m", "server.commands.cli", "grants", "--database-url",
              t.server.settings.database_url, "grant", "--tenant", "default", "--principal",
              "developer", "--tool", "write_file", "--level", "write", "--allow",
              "path=reports/", "--requires-approval"],
            cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        out, err = await asyncio.wait_for(cli.communicate(), 60)
        assert (cli.returncode, err) == (0, b"")  # nothing to warn about
        grant_id = out.decode().split()[1].rstrip(":")
        await t.refresh()  # as the server does every AGENTD_GRANTS_REFRESH_SECONDS
        developer = t.running.client(api_key=plaintext[1], timeout=20)

        with pytest.raises(client_errors.PermissionDeniedError, match="not under reports/"):
            await developer.call_tool("write_file", {"path": "secrets.txt", "content": "x"})
        asks = f"grant {grant_id} requires a human's approval"
        with pytest.raises(client_errors.PermissionDeniedError, match=asks):
            await developer.call_tool("write_file", {"path": "reports/q3.txt", "content": "x"})

        stream = developer.execute("file the q3 report", mode=FC)
        events: list[events_pb2.TaskEvent] = []
        async for event in stream:
            events.append(event)
            if event.WhichOneof("payload") == "approval_requested":
                break
        asked = events[-1].approval_requested
        assert dict(asked.arguments)["path"] == "reports/q3.txt"
        assert asked.reason == f"{asks} of each call"
        await developer.approve_tool_call(events[0].task_id, asked.call_id, "approve")
        events.extend([event async for event in stream])
        assert_well_formed(events)
        finished = of_kind(events, "tool_call_finished")
        assert "not under reports/" in finished[0].error.message  # refused, nobody asked
        assert not finished[1].HasField("error")
        assert len(of_kind(events, "approval_requested")) == 1
        workspace = tmp_path / "workspace"
        assert (workspace / "reports" / "q3.txt").read_text() == "q3"
        assert not (workspace / "secrets.txt").exists()

        records = [r for r in await t.tool_records("default") if r.tool_name == "write_file"]
        assert [(r.decision, r.rule, r.outcome) for r in records] == [
            ("denied", f"grant:{grant_id}", "denied"),
            ("denied", f"grant:{grant_id}:approval", "denied"),
            ("denied", f"grant:{grant_id}", "denied"),
            ("allowed", f"grant:{grant_id}", "ok"),
        ]
        assert records[-1].approval == "approved"
