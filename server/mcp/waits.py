"""A task waiting for a person, told to an MCP caller.

- A 2026-07-28 client gets an `input_required` result: one form elicitation (approve or
  deny the tool call; answer the question) and the `requestState` sealed by the key ring
  (`server.mcp.state`). Its retry carries the answer; any replica applies it through the
  engine's ApproveToolCall / ProvideInput paths.
- An older client that declared elicitation, on a connection that can carry a request to
  it, gets `elicitation/create` there (never over stateless HTTP: no back channel).
- Otherwise (or with no AGENTD_KEYS to seal with) the call ends with an error result
  naming the task and the inbox (ListPendingActions, ApproveToolCall, ProvideInput).
"""

from __future__ import annotations

from typing import Any

import mcp_types as types

from core.errors import FieldViolation, InvalidArgumentError
from records import events as ev
from server.mcp.state import Waiting

KEY = "agentd"
"""The key of agentd's one input request in `inputRequests` / `inputResponses`."""

APPROVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approve": {"type": "boolean", "description": "run the tool call (false: deny it)"},
        "comment": {"type": "string", "description": "why, for the task's log"},
    },
    "required": ["approve"],
}
QUESTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string", "description": "your answer"}},
    "required": ["answer"],
}


def waiting_of(task_id: str, event: ev.TaskEvent) -> Waiting | None:
    """What the task waits for at `event`, if it is a wait for a person."""
    payload = event.payload
    if isinstance(payload, ev.ApprovalRequested):
        return Waiting(task_id, "approval", payload.call_id, event.sequence)
    if isinstance(payload, ev.InputRequested):
        return Waiting(task_id, "question", payload.request_id, event.sequence)
    return None


def asked(event: ev.TaskEvent) -> types.ElicitRequestFormParams:
    """The form a person answers."""
    payload = event.payload
    if isinstance(payload, ev.ApprovalRequested):
        message = (
            f"The agent wants to call {payload.tool_name} with {payload.arguments}"
            + (f" ({payload.reason})" if payload.reason else "")
            + ". Approve?"
        )
        return types.ElicitRequestFormParams(message=message, requested_schema=APPROVAL_SCHEMA)
    assert isinstance(payload, ev.InputRequested)
    return types.ElicitRequestFormParams(message=payload.question, requested_schema=QUESTION_SCHEMA)


def input_required(form: types.ElicitRequestFormParams, sealed: str) -> types.InputRequiredResult:
    return types.InputRequiredResult(
        input_requests={KEY: types.ElicitRequest(params=form)}, request_state=sealed
    )


def in_the_inbox(waiting: Waiting, why: str) -> types.CallToolResult:
    """The error result of a call whose task waits where this client cannot answer."""
    what = "a tool call's approval" if waiting.kind == "approval" else "an answer"
    how = "ApproveToolCall" if waiting.kind == "approval" else "ProvideInput"
    text = (
        f"INPUT_REQUIRED: task {waiting.task_id} waits for {what} ({why}). It waits in "
        f"agentd's inbox: ListPendingActions lists it; answer with {how} (task_id "
        f"{waiting.task_id}, {'call_id' if waiting.kind == 'approval' else 'request_id'} "
        f"{waiting.ref})."
    )
    return types.CallToolResult(
        content=[types.TextContent(text=text)],
        is_error=True,
        meta={"agentd/task_id": waiting.task_id, "agentd/waiting": waiting.kind},
    )


def answer_of(waiting: Waiting, response: object) -> tuple[bool, str]:
    """(approve, comment) of an approval, (True, text) of a question's answer, from the
    client's elicitation result; INVALID_ARGUMENT naming the field when it says neither."""
    field = f"inputResponses.{KEY}"
    if not isinstance(response, types.ElicitResult):
        raise InvalidArgumentError([FieldViolation(field, "an elicitation result is required")])
    content = response.content or {}
    if waiting.kind == "approval":
        approve = response.action == "accept" and content.get("approve") is True
        comment = content.get("comment")
        return approve, comment if isinstance(comment, str) else ""
    answer = content.get("answer")
    if response.action != "accept" or not isinstance(answer, str):
        raise InvalidArgumentError(
            [FieldViolation(f"{field}.content.answer", "the question needs an answer")]
        )
    return True, answer
