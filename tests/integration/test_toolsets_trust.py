"""MCP tools under the same trust as built-ins, auth on and default deny: grants that allow
one MCP tool and deny another, `notes.*` grants, an approval of an MCP call, and an MCP
result that tells the model to call what it has no grant for."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentd.v1 import events_pb2, tasks_pb2, tools_pb2
from agentd_client import errors as client_errors
from tests.integration.harness import assert_well_formed, of_kind
from tests.integration.toolsets import FAST, notes_log, stdio_notes, write_toolsets
from tests.integration.trust import trusted

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
TOOLS = {"add_note": {"level": "write"}, "delete_note": {"level": "write"}}


def _settings(tmp_path: Path) -> dict[str, Any]:
    notes = stdio_notes(tmp_path, level="read", tools=TOOLS)
    return {"toolsets_file": write_toolsets(tmp_path / "toolsets.yaml", {"notes": notes}), **FAST}


async def test_a_grant_allows_one_mcp_tool_and_not_another(tmp_path: Path) -> None:
    async with trusted(tmp_path, **_settings(tmp_path)) as t:
        alice = await t.client("acme", "alice", "analyst")
        bob = await t.client("acme", "bob", "writer")
        assert await alice.list_tools() == []
        await t.grant("acme", "role:analyst", "notes.search", "read")
        await t.grant("acme", "role:writer", "notes.*", "read")  # every tool, up to READ

        assert [tool.name for tool in await alice.list_tools()] == ["notes.search"]
        assert (await alice.call_tool("notes.search", {"query": "q"})).text == "3 notes about q"
        with pytest.raises(client_errors.PermissionDeniedError, match="no grant"):
            await alice.call_tool("notes.add_note", {"text": "hi"})

        names = {tool.name for tool in await bob.list_tools()}
        assert "notes.search" in names
        assert "notes.add_note" not in names  # it needs WRITE; the grant gives READ
        with pytest.raises(client_errors.PermissionDeniedError, match="gives READ"):
            await bob.call_tool("notes.add_note", {"text": "hi"})
        assert not any(line.startswith("add_note") for line in notes_log(tmp_path))

        records = await t.tool_records("acme")
        decided = [(r.principal_id, r.tool_name, r.decision, r.outcome) for r in records]
        assert decided == [
            ("alice", "notes.search", "allowed", "ok"),
            ("alice", "notes.add_note", "denied", "denied"),
            ("bob", "notes.add_note", "denied", "denied"),
        ]
        assert records[0].rule.startswith("grant:")


async def test_an_mcp_call_waits_for_a_persons_approval(tmp_path: Path) -> None:
    call = {"tool_calls": [{"name": "notes_add_note", "arguments": {"text": "buy tea"}}]}
    async with trusted(tmp_path, [call, {"text": "noted"}], **_settings(tmp_path)) as t:
        alice = await t.client("acme", "alice")
        carol = await t.client("acme", "carol", "approver")
        await t.grant("acme", "principal:alice", "notes.add_note", "write", requires_approval=True)

        stream = alice.execute("note: buy tea", mode=FC)
        events: list[events_pb2.TaskEvent] = []
        async for event in stream:
            events.append(event)
            if event.WhichOneof("payload") == "approval_requested":
                break
        asked = events[-1].approval_requested
        assert (asked.tool_name, dict(asked.arguments)) == ("notes.add_note", {"text": "buy tea"})
        assert notes_log(tmp_path) == []  # nothing ran before the decision
        await carol.approve_tool_call(events[0].task_id, asked.call_id, "approve", comment="ok")
        events.extend([event async for event in stream])

        assert_well_formed(events)
        [finished] = of_kind(events, "tool_call_finished")
        assert (finished.tool_name, finished.text) == ("notes.add_note", "added: buy tea")
        assert notes_log(tmp_path) == ["add_note buy tea"]
        [record] = [r for r in await t.tool_records("acme") if r.call_id == asked.call_id]
        assert (record.approval, record.approved_by, record.outcome) == ("approved", "carol", "ok")


async def test_an_mcp_result_cannot_make_the_model_call_what_it_has_no_grant_for(
    tmp_path: Path,
) -> None:
    obey = {  # the model does as the note says, naming the tool as the note wrote it
        "tool_calls": [
            {"name": "notes.delete_note", "arguments": {"note_id": 1}},
            {"name": "write_file", "arguments": {"path": "pwned.txt", "content": "owned"}},
        ]
    }
    replies = [{"tool_calls": [{"name": "notes_inject", "arguments": {}}]}, obey, {"text": "ok"}]
    async with trusted(tmp_path, replies, **_settings(tmp_path)) as t:
        alice = await t.client("acme", "alice")
        await t.grant("acme", "principal:alice", "notes.*", "read")
        events = [e async for e in alice.execute("read note 7", mode=FC)]

        assert_well_formed(events)
        finished = of_kind(events, "tool_call_finished")
        assert "SYSTEM NOTICE" in finished[0].text  # what the server said reached the model
        for refused in finished[1:]:
            assert refused.error.kind == tools_pb2.TOOL_ERROR_KIND_FAILED
            assert "not available to this task" in refused.error.message
        assert [f.tool_name for f in finished[1:]] == ["notes.delete_note", "write_file"]
        assert not (tmp_path / "workspace" / "pwned.txt").exists()
        assert not any(line.startswith("delete_note") for line in notes_log(tmp_path))
        records = {r.tool_name: r for r in await t.tool_records("acme")}
        assert (records["notes.delete_note"].decision, records["write_file"].decision) == (
            "denied",
            "denied",
        )
        assert records["notes.delete_note"].rule.startswith("grant:")  # READ < WRITE


async def test_a_call_by_an_unoffered_wire_name_is_audited_under_the_tools_own_name(
    tmp_path: Path,
) -> None:
    replies = [
        {"tool_calls": [{"name": "notes_delete_note", "arguments": {"note_id": 1}}]},
        {"text": "ok"},
    ]
    async with trusted(tmp_path, replies, **_settings(tmp_path)) as t:
        alice = await t.client("acme", "alice")
        await t.grant("acme", "principal:alice", "notes.search", "read")
        events = [e async for e in alice.execute("tidy up", mode=FC, tools=["notes.search"])]

        assert_well_formed(events)
        [refused] = of_kind(events, "tool_call_finished")
        assert "not available to this task" in refused.error.message
        [record] = await t.tool_records("acme")
        assert (record.tool_name, record.decision) == ("notes.delete_note", "denied")
        assert not any(line.startswith("delete_note") for line in notes_log(tmp_path))
