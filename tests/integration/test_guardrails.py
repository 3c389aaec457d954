"""Guardrails through the real server, the typed client and the fake OpenAI server (which
records every request): the task's input, the model's streamed output (not one byte of a
blocked match in any event, whatever the windows), tool calls' arguments (by CallTool
and inside a task) and results (the model is sent the redacted form)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from google.protobuf import json_format

from agentd.v1 import tasks_pb2
from agentd_client import errors as client_errors
from tests.integration.harness import harness, kinds, of_kind

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
CARD = "4111 1111 1111 1111"
PHRASE = "project nightingale"


def _guardrails(tmp_path: Path, *checks: dict[str, Any]) -> dict[str, Any]:
    """Settings naming a guardrails file that declares `checks`."""
    path = tmp_path / "guardrails.yaml"
    path.write_text(yaml.safe_dump({"guardrails": list(checks)}), encoding="utf-8")
    return {"guardrails_file": path, "delta_flush_ms": 0}


def _said(request: dict[str, Any]) -> str:
    return json.dumps(request["messages"])


def _leaks(events: list[Any], *needles: str) -> list[str]:
    """The needles (or their digits in order) found in any event, deltas one by one and
    all of them joined."""
    found = []
    texts = [json.dumps(json_format.MessageToDict(e)) for e in events]
    deltas = "".join(e.text_delta.text for e in events if e.WhichOneof("payload") == "text_delta")
    for needle in needles:
        digits = needle.replace(" ", "")
        for text in [*texts, deltas]:
            if needle in text or (digits.isdigit() and digits in text.replace(" ", "")):
                found.append(needle)
    return found


PREFACE = "The quarter went well; the team shipped on time. " * 6
CARD_AND_PHRASE = {
    "text": f"{PREFACE}The card on file is {CARD} and the code name was {PHRASE}. That is all.",
    "chunks": 61,
}
BLOCKING = (
    {"name": "no-cards", "kind": "pii", "entities": ["card"], "points": ["output"],
     "action": "block"},
    {"name": "code-names", "kind": "deny", "phrases": [PHRASE], "points": ["output"],
     "action": "block"},
)  # fmt: skip


@pytest.mark.parametrize("window", [8, 32, 4096])
async def test_a_blocked_output_leaks_nothing_whatever_the_window(
    tmp_path: Path, window: int
) -> None:
    settings = _guardrails(tmp_path, *BLOCKING)
    async with harness(tmp_path, [CARD_AND_PHRASE], guardrail_window_chars=window, **settings) as h:
        events = [e async for e in h.client.execute("Summarise the quarter", mode=FC)]
        task_id = events[0].task_id
        assert _leaks(events, CARD, PHRASE) == []
        task = await h.client.get_task(task_id)
        assert task.status == tasks_pb2.TASK_STATUS_FAILED
        assert task.stop_reason == tasks_pb2.STOP_REASON_GUARDRAIL
        assert task.error.reason == "GUARDRAIL_BLOCKED"
        assert CARD not in task.final_answer
        assert PHRASE not in task.final_answer
        decided = {
            (d.check, d.rule, d.point, d.action) for d in of_kind(events, "guardrail_decided")
        }
        assert ("no-cards", "card", "output", "block") in decided  # the phrase may share its window
        assert decided <= {
            ("no-cards", "card", "output", "block"),
            ("code-names", "deny:phrases-1", "output", "block"),
        }
        replayed = [e async for e in h.client.stream_task_events(task_id)]
        assert _leaks(replayed, CARD, PHRASE) == []
        if window + 128 < len(PREFACE):  # what came before the card went out (128: the tail)
            assert "text_delta" in kinds(replayed)


async def test_a_redacted_output_arrives_with_placeholders(tmp_path: Path) -> None:
    checks = [dict(c, action="redact") for c in BLOCKING]
    async with harness(tmp_path, [CARD_AND_PHRASE], **_guardrails(tmp_path, *checks)) as h:
        events = [e async for e in h.client.execute("Summarise the quarter", mode=FC)]
        assert _leaks(events, CARD, PHRASE) == []
        task = await h.client.get_task(events[0].task_id)
        assert task.status == tasks_pb2.TASK_STATUS_COMPLETED
        assert "[CARD]" in task.final_answer
        assert "[DENY]" in task.final_answer
        deltas = "".join(d.text for d in of_kind(events, "text_delta"))
        assert "[CARD]" in deltas
        actions = {(d.check, d.action) for d in of_kind(events, "guardrail_decided")}
        assert actions == {("no-cards", "redact"), ("code-names", "redact")}


async def test_an_input_check_blocks_before_any_model_call(tmp_path: Path) -> None:
    check = {"name": "no-ibans", "kind": "pii", "entities": ["iban"], "points": ["input"],
             "action": "block"}  # fmt: skip
    async with harness(tmp_path, [{"text": "never"}], **_guardrails(tmp_path, check)) as h:
        goal = "Pay GB82 WEST 1234 5698 7654 32 the invoice"
        events = [e async for e in h.client.execute(goal, mode=FC)]
        assert h.llm.requests == []
        task = await h.client.get_task(events[0].task_id)
        assert task.stop_reason == tasks_pb2.STOP_REASON_GUARDRAIL
        [decided] = of_kind(events, "guardrail_decided")
        assert (decided.check, decided.rule, decided.point) == ("no-ibans", "iban", "input")


EMAIL_ARGUMENTS = {"name": "no-emails", "kind": "pii", "entities": ["email"],
                   "points": ["tool_arguments"], "action": "block"}  # fmt: skip


async def test_a_tool_argument_check_blocks_call_tool(tmp_path: Path) -> None:
    settings = _guardrails(tmp_path, EMAIL_ARGUMENTS)
    async with harness(tmp_path, [], tool_permission="write", **settings) as h:
        content = {"path": "note.txt", "content": "write to ann@example.com"}
        with pytest.raises(client_errors.GuardrailBlockedError) as refused:
            await h.client.call_tool("write_file", content)
        assert refused.value.code.name == "PERMISSION_DENIED"
        assert refused.value.metadata["check"] == "no-emails"
        assert not (tmp_path / "workspace" / "note.txt").exists()
        fine = await h.client.call_tool("write_file", {"path": "ok.txt", "content": "hello"})
        assert fine.error.message == ""


async def test_a_tool_argument_check_stops_a_task(tmp_path: Path) -> None:
    write = {"name": "write_file", "arguments": {"path": "n.txt", "content": "ann@example.com"}}
    replies = [{"tool_calls": [write]}, {"text": "never"}]
    settings = _guardrails(tmp_path, EMAIL_ARGUMENTS)
    async with harness(tmp_path, replies, tool_permission="write", **settings) as h:
        events = [e async for e in h.client.execute("Note Ann's address", mode=FC)]
        task = await h.client.get_task(events[0].task_id)
        assert task.stop_reason == tasks_pb2.STOP_REASON_GUARDRAIL
        assert len(h.llm.requests) == 1
        assert not (tmp_path / "workspace" / "n.txt").exists()
        [decided] = of_kind(events, "guardrail_decided")
        assert (decided.point, decided.tool_name) == ("tool_arguments", "write_file")


async def test_a_tool_result_check_redacts_what_the_model_is_sent(tmp_path: Path) -> None:
    check = {"name": "no-emails", "kind": "pii", "entities": ["email"],
             "points": ["tool_result"], "action": "redact"}  # fmt: skip
    read = {"name": "read_file", "arguments": {"path": "contacts.txt"}}
    replies = [{"tool_calls": [read]}, {"text": "Done."}]
    async with harness(tmp_path, replies, **_guardrails(tmp_path, check)) as h:
        (tmp_path / "workspace").mkdir(exist_ok=True)
        (tmp_path / "workspace" / "contacts.txt").write_text("Ann: ann@example.com\n")
        events = [e async for e in h.client.execute("Who is in contacts.txt?", mode=FC)]
        assert "ann@example.com" not in _said(h.llm.requests[1])
        assert "[EMAIL]" in _said(h.llm.requests[1])
        assert _leaks(events, "ann@example.com") == []


async def _policy_server(word: str) -> tuple[Any, str]:
    """A PolicyService written here: blocks any text holding `word`."""
    import grpc

    from agentd.v1 import guardrails_pb2 as gpb
    from agentd.v1 import guardrails_pb2_grpc as gpb_grpc

    class Policy(gpb_grpc.PolicyServiceServicer):
        async def Check(self, request: Any, context: Any) -> Any:
            if word in request.text:
                block = gpb.POLICY_DECISION_BLOCK
                return gpb.PolicyCheckResponse(decision=block, reason="not here", rule="corp")
            return gpb.PolicyCheckResponse(decision=gpb.POLICY_DECISION_ALLOW)

    server = grpc.aio.server()
    gpb_grpc.add_PolicyServiceServicer_to_server(Policy(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, f"127.0.0.1:{port}"


def _policy_check(address: str, fail: str) -> dict[str, Any]:
    return {"name": "corp-policy", "kind": "policy_service", "address": address,
            "points": ["input"], "action": "block", "fail": fail, "timeout_ms": 2000}  # fmt: skip


async def test_an_operators_policy_service_refuses_a_task(tmp_path: Path) -> None:
    server, address = await _policy_server("merger")
    try:
        settings = _guardrails(tmp_path, _policy_check(address, "closed"))
        async with harness(tmp_path, [{"text": "Fine."}], **settings) as h:
            refused = [e async for e in h.client.execute("Draft the merger memo", mode=FC)]
            task = await h.client.get_task(refused[0].task_id)
            assert task.stop_reason == tasks_pb2.STOP_REASON_GUARDRAIL
            [decided] = of_kind(refused, "guardrail_decided")
            assert (decided.check, decided.rule, decided.reason) == (
                "corp-policy",
                "corp",
                "not here",
            )
            assert h.llm.requests == []
            allowed = [e async for e in h.client.execute("Draft the lunch memo", mode=FC)]
            assert (await h.client.get_task(allowed[0].task_id)).final_answer == "Fine."
    finally:
        await server.stop(None)


@pytest.mark.parametrize("fail", ["closed", "open"])
async def test_a_policy_service_that_is_down_fails_as_declared(tmp_path: Path, fail: str) -> None:
    server, address = await _policy_server("merger")
    await server.stop(None)  # nothing listens there any more
    settings = _guardrails(tmp_path, _policy_check(address, fail))
    async with harness(tmp_path, [{"text": "Fine."}], **settings) as h:
        events = [e async for e in h.client.execute("Draft the lunch memo", mode=FC)]
        task = await h.client.get_task(events[0].task_id)
        [decided] = of_kind(events, "guardrail_decided")
        assert (decided.check, decided.rule) == ("corp-policy", "unavailable")
        if fail == "closed":
            assert decided.action == "block"
            assert task.stop_reason == tasks_pb2.STOP_REASON_GUARDRAIL
            assert h.llm.requests == []
        else:
            assert decided.action == "record"
            assert "let through" in decided.reason
            assert task.final_answer == "Fine."


async def test_a_tool_result_check_redacts_an_mcp_tools_result(tmp_path: Path) -> None:
    from tests.integration.toolsets import FAST, stdio_notes, write_toolsets

    check = {"name": "no-emails", "kind": "pii", "entities": ["email"],
             "points": ["tool_result"], "action": "redact"}  # fmt: skip
    notes = stdio_notes(tmp_path, level="write")
    toolsets = write_toolsets(tmp_path / "toolsets.yaml", {"notes": notes})
    search = {"name": "notes_search", "arguments": {"query": "ann@example.com"}}
    replies = [{"tool_calls": [search]}, {"text": "Found them."}]
    settings = {**_guardrails(tmp_path, check), "toolsets_file": toolsets, **FAST}
    async with harness(tmp_path, replies, **settings) as h:
        found = h.client.execute("Find Ann's notes", mode=FC, tools=["notes.search"])
        events = [e async for e in found]
        [result] = [m for m in h.llm.requests[1]["messages"] if m["role"] == "tool"]
        assert result["content"] == "3 notes about [EMAIL]"
        [finished] = of_kind(events, "tool_call_finished")
        assert "ann@example.com" not in json.dumps(json_format.MessageToDict(finished))
        [decided] = of_kind(events, "guardrail_decided")
        assert (decided.point, decided.tool_name, decided.action) == (
            "tool_result",
            "notes.search",
            "redact",
        )


async def test_a_decision_is_audited_without_its_text(tmp_path: Path) -> None:
    async with harness(tmp_path, [CARD_AND_PHRASE], **_guardrails(tmp_path, *BLOCKING)) as h:
        events = [e async for e in h.client.execute("Summarise the quarter", mode=FC)]
        page = await h.client.list_audit_records(kind="guardrail")
        records = [r.guardrail for r in page.records]
        assert {(r.check, r.action, r.point) for r in records} >= {("no-cards", "block", "output")}
        assert {r.task_id for r in records} == {events[0].task_id}
        assert all(len(r.text_digest) == 64 for r in records)
        shown = json.dumps([json_format.MessageToDict(r) for r in page.records])
        assert CARD not in shown
        assert PHRASE not in shown
        assert CARD.replace(" ", "") not in shown.replace(" ", "")


async def test_a_moderation_check_on_the_final_answer_blocks_it(tmp_path: Path) -> None:
    """The fake model's /v1/moderations flags UNSAFE (harassment); the check looks at the
    final answer only (scope final): one moderation call, on the whole answer."""
    check = {"name": "moderation", "kind": "moderation", "points": ["output"],
             "action": "block", "scope": "final"}  # fmt: skip
    replies = [{"text": "That plan is UNSAFE for everyone."}]
    async with harness(tmp_path, replies, **_guardrails(tmp_path, check)) as h:
        events = [e async for e in h.client.execute("Judge the plan", mode=FC)]
        task = await h.client.get_task(events[0].task_id)
        assert task.stop_reason == tasks_pb2.STOP_REASON_GUARDRAIL
        assert "UNSAFE" not in task.final_answer
        [decided] = of_kind(events, "guardrail_decided")
        assert (decided.check, decided.rule) == ("moderation", "moderation:harassment")
        assert len(h.llm.moderation.requests) == 1
