"""One tool invocation from its boundary to the tool and its audit record: the arguments
are parsed once (the model's reply, or CallTool's request) and redacted once (the events,
the approval and the audit records all show the same redacted form), with and without a
person's approval. The parse and the redaction are counted where they happen."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import struct_pb2

from agent.llm.testing import ScriptedModel, text, tool_calls
from agent.modes import function_calling
from agent.parked import Parked
from agentd.v1 import agent_service_pb2 as pb
from core import secrets
from core.identity import CallContext
from records import events as ev
from records.tools.model import JSONValue, PermissionLevel, RiskLevel, Tool, ToolOutput, ToolSpec
from records.waits import WaitKind
from server.convert import tasks as convert
from server.rpcs.tools import ToolRpcs
from tests.unit.agent.runs import PRINCIPAL, Env, make_env, of_type

MARK = "note_7f3a9c"
"""An argument name nothing else uses: a parse or redaction of the arguments has it."""
ARGUMENTS = {MARK: "hello", "api_key": "sk-" + "x" * 24}
SHOWN = {MARK: "hello", "api_key": secrets.REDACTED}


class NoteTool(Tool):
    spec = ToolSpec(
        name="note",
        description="Keep a note.",
        parameters={
            "type": "object",
            "properties": {MARK: {"type": "string"}, "api_key": {"type": "string"}},
            "required": [MARK],
        },
        category="test",
        permission=PermissionLevel.NONE,
        risk=RiskLevel.LOW,
        idempotent=True,
        timeout_seconds=5.0,
    )

    async def run(self, arguments: dict[str, JSONValue], context: CallContext) -> ToolOutput:
        return ToolOutput({"kept": len(str(arguments[MARK]))}, "kept")


@dataclass
class Counts:
    parses: int = 0
    redactions: int = 0


def _has_mark(value: Any) -> bool:
    if isinstance(value, bytes):
        value = value.decode(errors="replace")
    if isinstance(value, str):
        return MARK in value
    if isinstance(value, Mapping):
        return MARK in value
    if isinstance(value, struct_pb2.Struct):
        return MARK in value.fields
    return False


@pytest.fixture
def counts(monkeypatch: pytest.MonkeyPatch) -> Counts:
    """Counts json.loads (and CallTool's Struct conversion) of the arguments and the
    redactions of them (outermost calls of core.secrets.redact, wherever imported)."""
    counted = Counts()
    loads, to_dict, redact = json.loads, convert.struct_to_dict, secrets.redact
    depth = 0

    def counting_loads(s: Any, *args: Any, **kwargs: Any) -> Any:
        counted.parses += _has_mark(s)
        return loads(s, *args, **kwargs)

    def counting_to_dict(struct: struct_pb2.Struct, field: str = "arguments") -> Any:
        counted.parses += _has_mark(struct)
        return to_dict(struct, field)

    def counting_redact(value: Any) -> Any:
        nonlocal depth
        counted.redactions += depth == 0 and _has_mark(value)
        depth += 1
        try:
            return redact(value)
        finally:
            depth -= 1

    monkeypatch.setattr(json, "loads", counting_loads)
    monkeypatch.setattr(convert, "struct_to_dict", counting_to_dict)
    for module in list(sys.modules.values()):
        if getattr(module, "redact", None) is redact:
            monkeypatch.setattr(module, "redact", counting_redact)
    return counted


def _env(tmp_path: Path, approval: bool = False) -> Env:
    env = make_env(tmp_path, approval_tools=["note"] if approval else [])
    env.registry.register(NoteTool())
    return env


async def test_call_tool_parses_and_redacts_the_arguments_once(
    tmp_path: Path, counts: Counts
) -> None:
    env = _env(tmp_path)
    arguments = struct_pb2.Struct()
    arguments.update(ARGUMENTS)
    rpcs = ToolRpcs(env.registry, listing=None)  # type: ignore[arg-type]
    request = pb.CallToolRequest(tool_name="note", arguments=arguments)

    response = await ToolRpcs.CallTool.__wrapped__(rpcs, request, CallContext(PRINCIPAL))  # type: ignore[attr-defined]

    assert response.text == "kept"
    (record,) = env.audit.records
    assert (record.outcome, dict(record.arguments)) == ("ok", SHOWN)
    assert (counts.parses, counts.redactions) == (1, 1)


async def test_a_model_tool_call_parses_and_redacts_the_arguments_once(
    tmp_path: Path, counts: Counts
) -> None:
    env = _env(tmp_path)
    run = await env.run(
        ScriptedModel([tool_calls(("note", ARGUMENTS)), text("done")]), tools=["note"]
    )

    outcome = await function_calling.run(run)

    assert outcome.answer == "done"
    events = await env.events(run)
    (started,) = of_type(events, ev.ToolCallStarted)
    assert started.arguments == SHOWN
    (record,) = env.audit.records
    assert (record.outcome, dict(record.arguments)) == ("ok", SHOWN)
    assert (counts.parses, counts.redactions) == (1, 1)


@pytest.mark.parametrize("edit", [False, True])
async def test_a_model_tool_call_with_an_approval_parses_and_redacts_once(
    tmp_path: Path, counts: Counts, edit: bool
) -> None:
    """With an approval the arguments are still redacted once per run (shown in the
    request for it, the events and the audit record; the woken run redacts the arguments
    it kept once); an approver's edit is one more set of arguments, redacted once too."""
    env = _env(tmp_path, approval=True)
    run = await env.run(
        ScriptedModel([tool_calls(("note", ARGUMENTS)), text("done")]), tools=["note"]
    )
    with pytest.raises(Parked):
        await function_calling.run(run)
    asked = of_type(await env.events(run), ev.ApprovalRequested)
    assert asked
    assert asked[0].arguments == SHOWN
    edited = {MARK: "edited", "api_key": "sk-" + "y" * 24} if edit else None
    await env.answer(run, asked[0].call_id, WaitKind.APPROVAL, approved=True, arguments=edited)
    woken = await env.woken(run, ScriptedModel([text("done")]))

    outcome = await asyncio.wait_for(function_calling.run(woken), 10)

    assert outcome.answer == "done"
    events = await env.events(woken)
    (decided,) = of_type(events, ev.ApprovalDecided)
    assert decided.arguments == ({MARK: "edited", "api_key": secrets.REDACTED} if edit else None)
    (record,) = env.audit.records
    assert record.approval == ("edited" if edit else "approved")
    shown = dict(decided.arguments) if decided.arguments is not None else SHOWN
    assert dict(record.arguments) == shown
    # Once per run: the run that asked parsed and redacted them once; the woken run read
    # its checkpoint (one parse), parsed the call it takes up and redacted the arguments
    # it kept once (and an edit once more).
    assert (counts.parses, counts.redactions) == (3, 3 if edit else 2)
