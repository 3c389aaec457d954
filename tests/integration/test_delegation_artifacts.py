"""Artifacts of a task tree, through the real server with auth on: a child task writes
into its root task's space, the lead reads what it wrote, `GetTask` of the lead shows it,
`GetArtifact` on the lead's id returns it, and another tenant reads nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentd_client import errors as client_errors
from agentd_client.client import to_python
from tests.integration.harness import assert_well_formed, final, of_kind
from tests.integration.test_delegation import agents, delegate
from tests.integration.trust import trusted

EDITOR = """\
id: editor
description: Edits reports
instructions: You are the editor.
mode: function_calling
tools: [read_artifact]
delegates: [author]
"""
AUTHOR = """\
id: author
description: Writes reports
instructions: You are the author.
mode: function_calling
tools: [write_artifact]
"""


async def test_a_child_writes_an_artifact_its_lead_reads(tmp_path: Path) -> None:
    folder = agents(tmp_path, editor=EDITOR, author=AUTHOR)
    write = {"name": "write_artifact", "arguments": {"name": "report.md", "content": "# Q3"}}
    read = {"name": "read_artifact", "arguments": {"name": "report.md"}}
    replies = [
        {"match": "You are the editor", "tool_calls": [delegate("author", "write the report")]},
        {"match": "You are the author", "tool_calls": [write]},
        {"match": "You are the author", "text": "written to report.md"},
        {"match": "You are the editor", "tool_calls": [read]},
        {"match": "You are the editor", "text": "The report says: # Q3"},
    ]
    async with trusted(tmp_path, replies, agents_dir=folder) as t:
        await t.grant("acme", "principal:alice", "category:artifacts", "write")
        await t.grant("acme", "principal:alice", "category:agents", "read")  # to delegate
        alice = await t.client("acme", "alice")
        events = [e async for e in alice.execute("Get the report written", agent="editor")]
        assert_well_formed(events)
        lead_id = events[0].task_id
        (started,) = of_kind(events, "subtask_started")
        child_id = started.child_task_id

        read_back = next(
            f for f in of_kind(events, "tool_call_finished") if f.tool_name == "read_artifact"
        )
        assert to_python(read_back.result)["content"] == "# Q3"
        assert final(events).text == "The report says: # Q3"

        lead = await alice.get_task(lead_id)
        assert [(a.name, a.version, a.writer_task_id) for a in lead.artifacts] == [
            ("report.md", 1, child_id)
        ]
        content = await alice.get_artifact(lead_id, "report.md")
        assert (content.version, content.text) == (1, "# Q3")
        through_child = await alice.get_artifact(child_id, "report.md")  # the same tree
        assert through_child.text == "# Q3"

        mallory = await t.client("globex", "mallory", "admin")
        with pytest.raises(client_errors.TaskNotFoundError):
            await mallory.get_artifact(lead_id, "report.md")
        with pytest.raises(client_errors.TaskNotFoundError):
            await mallory.get_artifact(child_id, "report.md")
