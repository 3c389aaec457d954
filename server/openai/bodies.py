"""The OpenAI requests' bodies as agentd's: parsed and checked once, a malformed one
refused with the field named (`param`) as OpenAI names it.

The rules (docs/openai.md): `model` is `agent:<id>` or `agent:<id>@<version>`; the last
user message of the input is the task; earlier messages and `instructions` (with system
and developer messages) go into the task's context, under `messages` and `instructions`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from agent.inputs.checks import suggested_names
from records.agents.definition import split_reference
from records.parts import InputPart
from server.openai.errors import invalid
from server.openai.parts import PART_TYPES, part_of

PREFIX = "agent:"
RESPONSE_PREFIX = "resp_"


def json_object(body: bytes) -> dict[str, Any]:
    """The body as a JSON object; InvalidArgumentError (param `body`) otherwise."""
    try:
        data = json.loads(body)
    except ValueError as bad:
        raise invalid("body", f"is not JSON: {bad}") from None
    if not isinstance(data, dict):
        raise invalid("body", "must be a JSON object")
    return data


def agent_of(model: Any) -> str:
    """The agent reference (`id` or `id@version`) a `model` names."""
    if not isinstance(model, str) or not model.startswith(PREFIX):
        raise invalid("model", "must be an agent: 'agent:<id>' or 'agent:<id>@<version>'")
    reference = model[len(PREFIX) :]
    try:
        split_reference(reference)
    except ValueError as bad:
        raise invalid("model", str(bad)) from None
    return reference


def task_of(response_id: str) -> str:
    """The task a response id names (`resp_<task id>`); "" for an id of no response."""
    if not response_id.startswith(RESPONSE_PREFIX + "task_") or len(response_id) > 100:
        return ""
    return response_id[len(RESPONSE_PREFIX) :]


def _content_of(content: Any, param: str) -> tuple[str, tuple[InputPart, ...]]:
    """A message's text (a string, or its text parts joined) and its image and file
    parts (`server.openai.parts`)."""
    if isinstance(content, str):
        return content, ()
    if not isinstance(content, list):
        raise invalid(param, "must be a string or a list of content parts")
    texts: list[str] = []
    parts: list[InputPart] = []
    for index, part in enumerate(content):
        kind = part.get("type") if isinstance(part, dict) else None
        if kind in PART_TYPES:
            parts.append(part_of(part, f"{param}[{index}]"))
            continue
        if kind not in ("input_text", "output_text", "text") or not isinstance(
            part.get("text"), str
        ):
            problem = "must be a text, image or file part ({'type': 'input_text', ...})"
            raise invalid(f"{param}[{index}]", problem)
        texts.append(part["text"])
    return "\n".join(texts), suggested_names(parts)


@dataclass(frozen=True, slots=True)
class Message:
    role: str
    text: str
    parts: tuple[InputPart, ...] = ()
    """Its images and files; taken in the last user message (the task's) only."""
    param: str = ""
    """Where it is in the request (to name it)."""


@dataclass(frozen=True, slots=True)
class Approval:
    """An `mcp_approval_response` input item."""

    request_id: str
    approve: bool
    reason: str = ""


ROLES = ("user", "assistant", "system", "developer")


def _item(item: Any, param: str) -> Message | Approval:
    if not isinstance(item, dict):
        raise invalid(param, "must be an object")
    kind = item.get("type", "message")
    if kind == "mcp_approval_response":
        request_id, approve = item.get("approval_request_id"), item.get("approve")
        if not isinstance(request_id, str) or not request_id:
            raise invalid(f"{param}.approval_request_id", "is required")
        if not isinstance(approve, bool):
            raise invalid(f"{param}.approve", "must be true or false")
        reason = item.get("reason")
        return Approval(request_id, approve, reason if isinstance(reason, str) else "")
    if kind != "message":
        raise invalid(f"{param}.type", f"{kind!r} is not taken: message or mcp_approval_response")
    role = item.get("role")
    if role not in ROLES:
        raise invalid(f"{param}.role", f"must be one of {', '.join(ROLES)}")
    return Message(role, *_content_of(item.get("content"), f"{param}.content"), param)


@dataclass(frozen=True, slots=True)
class Turn:
    """What a request's messages ask: the task, and the context its other messages make."""

    goal: str = ""
    context: dict[str, Any] = field(default_factory=dict)
    approvals: tuple[Approval, ...] = ()
    parts: tuple[InputPart, ...] = ()
    """The task message's images and files (the task's input parts)."""


def turn_of(messages: list[Message], instructions: str, param: str) -> Turn:
    """The last user message is the task; what came before it is context."""
    last = max((i for i, m in enumerate(messages) if m.role == "user"), default=-1)
    if last < 0:
        raise invalid(param, "holds no user message: the last one is the task")
    told = [m.text for m in messages if m.role in ("system", "developer")]
    told = [instructions, *told] if instructions else told
    context: dict[str, Any] = {}
    if told:
        context["instructions"] = "\n\n".join(told)
    earlier = [{"role": m.role, "content": m.text} for m in messages[:last]]
    earlier = [m for m in earlier if m["role"] in ("user", "assistant")]
    if earlier:
        context["messages"] = earlier
    for index, message in enumerate(messages):
        if message.parts and index != last:
            where = f"{message.param}.content" if message.param else param
            raise invalid(where, "images and files are taken in the last user message only")
    return Turn(messages[last].text, context, parts=messages[last].parts)


def input_of(value: Any, instructions: str) -> Turn:
    """A Responses `input`: a string (the task), or input items (messages, or answers to
    approval requests: not both)."""
    if isinstance(value, str):
        if not value.strip():
            raise invalid("input", "is empty")
        return turn_of([Message("user", value)], instructions, "input")
    if not isinstance(value, list) or not value:
        raise invalid("input", "must be a string or a non-empty list of input items")
    items = [_item(item, f"input[{index}]") for index, item in enumerate(value)]
    approvals = tuple(i for i in items if isinstance(i, Approval))
    messages = [i for i in items if isinstance(i, Message)]
    if approvals and messages:
        raise invalid("input", "holds messages and approval responses: send them apart")
    if approvals:
        return Turn(approvals=approvals)
    return turn_of(messages, instructions, "input")


def optional_str(data: dict[str, Any], name: str) -> str:
    value = data.get(name)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise invalid(name, "must be a string")
    return value


def flag(data: dict[str, Any], name: str, default: bool) -> bool:
    value = data.get(name)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise invalid(name, "must be true or false")
    return value


def conversation_of(data: dict[str, Any]) -> str:
    """`conversation`: an id, or `{"id": ...}`."""
    value = data.get("conversation")
    if isinstance(value, dict):
        value = value.get("id")
    if value is not None and not isinstance(value, str):
        raise invalid("conversation", "must be a conversation id or {'id': ...}")
    return value or ""


@dataclass(frozen=True, slots=True)
class ResponsesRequest:
    """`POST /v1/responses`, checked."""

    agent: str
    turn: Turn
    previous_task: str = ""
    """The task of `previous_response_id` ("" when none)."""
    conversation: str = ""
    background: bool = False
    stream: bool = False
    store: bool = True


def responses_request(data: dict[str, Any]) -> ResponsesRequest:
    if data.get("tools"):
        raise invalid("tools", "agentd runs the agent's own tools: send none")
    agent = agent_of(data.get("model"))
    turn = input_of(data.get("input"), optional_str(data, "instructions"))
    previous = optional_str(data, "previous_response_id")
    previous_task = task_of(previous)
    if previous and not previous_task:
        raise invalid("previous_response_id", "is not the id of a response of agentd's")
    conversation = conversation_of(data)
    if previous and conversation:
        raise invalid("conversation", "give previous_response_id or conversation, not both")
    if turn.approvals and not previous:
        raise invalid("previous_response_id", "is required with mcp_approval_response items")
    store = flag(data, "store", True)
    background = flag(data, "background", False)
    if background and not store:
        raise invalid("background", "needs store: true (a background response is polled)")
    if not store and (previous or conversation):
        raise invalid("store", "must be true to continue a conversation")
    return ResponsesRequest(
        agent, turn, previous_task, conversation, background, flag(data, "stream", False), store
    )


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """`POST /v1/chat/completions`, checked."""

    agent: str
    turn: Turn
    stream: bool = False


def chat_request(data: dict[str, Any]) -> ChatRequest:
    if data.get("tools") or data.get("functions"):
        raise invalid("tools", "agentd runs the agent's own tools: send none")
    agent = agent_of(data.get("model"))
    raw = data.get("messages")
    if not isinstance(raw, list) or not raw:
        raise invalid("messages", "must be a non-empty list of messages")
    messages: list[Message] = []
    for index, item in enumerate(raw):
        param = f"messages[{index}]"
        if not isinstance(item, dict) or item.get("role") not in ROLES:
            raise invalid(f"{param}.role", f"must be one of {', '.join(ROLES)}")
        content = item.get("content")
        if content is None and item["role"] == "assistant":
            continue  # an assistant's message of tool calls alone: nothing to carry
        messages.append(Message(item["role"], *_content_of(content, f"{param}.content"), param))
    return ChatRequest(agent, turn_of(messages, "", "messages"), flag(data, "stream", False))
