"""No credential leaves a task in its events or its record: what a tool read, what the
model wrote (also when a key is split across streamed pieces), and what is stored."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentd.v1 import tasks_pb2
from tests.integration.harness import assert_well_formed, final, harness, of_kind

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhbGljZSIsInRlbmFudCI6ImFjbWUifQ."
    "c2lnbmF0dXJlLW9mLXRoZS10b2tlbg"
)
KEY = "sk-proj-abcdefghijklmnopqrstuvwxyz012345"
GITHUB = "ghp_" + "A1b2C3d4" * 5
SECRETS = (JWT, KEY, GITHUB, "abcdefghijklmnop", "hunter2hunter", "A1b2C3d4A1b2")


async def test_tool_results_and_answers_reach_no_reader_with_a_credential(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "config.txt").write_text(
        f"api token {JWT}\nclientSecret: hunter2hunter\nrepo token {GITHUB}\n"
    )
    replies: list[dict[str, Any]] = [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "config.txt"}}]},
        {  # the key is cut across many streamed pieces
            "text": f"The file holds a JWT, and the service key is {KEY} (keep it safe).",
            "reasoning": f"the file says password=hunter2hunter and {KEY}",
            "chunks": 23,
        },
    ]
    async with harness(tmp_path, replies) as h:
        events = await h.run("what is in config.txt?", mode=FC)
        assert_well_formed(events)
        task_id = events[0].task_id
        replayed = [e async for e in h.client.stream_task_events(task_id)]
        task = await h.client.get_task(task_id)
    everything = "".join(str(e) for e in (*events, *replayed, task))
    for secret in SECRETS:
        assert secret not in everything, secret
    streamed = "".join(delta.text for delta in of_kind(events, "text_delta"))
    assert streamed == "The file holds a JWT, and the service key is [REDACTED] (keep it safe)."
    assert final(events).text == streamed
    assert task.final_answer == streamed
    result = of_kind(events, "tool_call_finished")[0]
    assert "[REDACTED]" in str(result)
    assert "repo token [REDACTED]" in str(result)
    assert replayed == events


AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"  # 40 characters, AWS's own example
AWS_TEXTS = (
    f"aws={AWS_SECRET}",
    f"aws_secret_access_key = {AWS_SECRET}",
    f"AWS_SECRET_ACCESS_KEY={AWS_SECRET}",
    f'"aws": "{AWS_SECRET}"',
    f"my AWS key: {AWS_SECRET}",
)


async def test_aws_secret_keys_in_free_text_reach_no_event_or_audit_row(tmp_path: Path) -> None:
    note = "\n".join(AWS_TEXTS)
    replies: list[dict[str, Any]] = [
        {"tool_calls": [{"name": "json_query", "arguments": {"data": {"note": note},
                                                              "expression": "note"}}]},
        {"text": f"found {AWS_TEXTS[0]} and {AWS_TEXTS[4]}", "chunks": 17},
    ]  # fmt: skip
    async with harness(tmp_path, replies) as h:
        events = await h.run("what is in the note?", mode=FC)
        task = await h.client.get_task(events[0].task_id)
        records = await h.client.list_audit_records("tool_call")
        await h.client.call_tool("json_query", {"data": {"n": note}, "expression": "n"})
        rows = await h.client.list_audit_records("tool_call")  # the caller's own call's row too
    everything = "".join(str(x) for x in (*events, task, records, rows))
    assert AWS_SECRET not in everything
    assert AWS_SECRET[:20] not in everything
    assert len(rows.records) == 2
    assert final(events).text == "found aws=[REDACTED] and my AWS key: [REDACTED]"
