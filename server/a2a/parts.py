"""An A2A message's parts as an agentd task's goal and context, and answers to a paused
task (a question's answer, an approval's decision) read from a follow-up message."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from a2a.types import a2a_pb2
from google.protobuf import json_format

from agent.inputs.checks import suggested_names, usable_name
from core.errors import FieldViolation, InvalidArgumentError
from records.conversations.model import BusyPolicy
from records.parts import InputPart

APPROVE_WORDS = frozenset({"approve", "approved", "yes", "y", "ok"})
REJECT_WORDS = frozenset({"reject", "rejected", "no", "n", "deny"})


@dataclass(frozen=True, slots=True)
class Goal:
    """What a message asks: the task text, the context data its data parts carry and its
    file parts (bytes or a URL) as the task's input parts."""

    text: str
    context: dict[str, Any]
    parts: tuple[InputPart, ...] = ()


def _value(part: a2a_pb2.Part) -> Any:
    return json_format.MessageToDict(part.data)


def _file(part: a2a_pb2.Part) -> InputPart:
    """A file part as an input part (checked, fetched and kept by `agent.inputs`): its
    filename is the artifact's name when it is a valid one, else the default name."""
    name = usable_name(part.filename)
    media_type = part.media_type.lower()
    if part.HasField("url"):
        return InputPart(name=name, media_type=media_type, source_uri=part.url)
    return InputPart(name=name, media_type=media_type, data=part.raw)


def goal_of(message: a2a_pb2.Message) -> Goal:
    """Text parts joined are the goal; one data part holding an object is the context,
    other data parts go under `a2a_data`; file parts are the task's input parts."""
    texts: list[str] = []
    data: list[Any] = []
    files: list[InputPart] = []
    for part in message.parts:
        kind = part.WhichOneof("content")
        if kind == "text":
            texts.append(part.text)
        elif kind == "data":
            data.append(_value(part))
        elif kind in ("raw", "url"):
            files.append(_file(part))
    text = "\n\n".join(t for t in texts if t.strip())
    if not text:
        raise InvalidArgumentError(
            [FieldViolation("message.parts", "has no text part: the task needs a text")]
        )
    context: dict[str, Any] = {}
    if len(data) == 1 and isinstance(data[0], dict):
        context.update(data[0])
    elif data:
        context["a2a_data"] = data
    return Goal(text, context, suggested_names(files))


@dataclass(frozen=True, slots=True)
class Decision:
    """An approval's decision read from a follow-up message."""

    approve: bool
    comment: str


def decision_of(message: a2a_pb2.Message) -> Decision:
    """A data part `{"approval": {"decision": "approve"|"reject", "comment": ...}}`, else a
    text part that is one of the approve or reject words; InvalidArgumentError otherwise."""
    for part in message.parts:
        if part.WhichOneof("content") == "data":
            value = _value(part)
            approval = value.get("approval") if isinstance(value, dict) else None
            if isinstance(approval, dict) and approval.get("decision") in ("approve", "reject"):
                return Decision(approval["decision"] == "approve", str(approval.get("comment", "")))
    text = " ".join(p.text for p in message.parts if p.WhichOneof("content") == "text").strip()
    word = text.lower().rstrip(".!")
    if word in APPROVE_WORDS or word in REJECT_WORDS:
        return Decision(word in APPROVE_WORDS, "")
    raise InvalidArgumentError(
        [
            FieldViolation(
                "message.parts",
                "the task waits for an approval: send 'approve' or 'reject' (or a data part "
                '{"approval": {"decision": "approve"}})',
            )
        ]
    )


def answer_of(message: a2a_pb2.Message) -> str:
    """A question's answer: the message's text parts joined."""
    return "\n\n".join(p.text for p in message.parts if p.WhichOneof("content") == "text")


BUSY_POLICY_KEY = "agentd_busy_policy"
"""The message metadata key that says what a message to a context whose task is working
does: reject, enqueue (the default), interrupt, steer or follow_up."""
_POLICIES = {policy.value: policy for policy in BusyPolicy}


def busy_policy_of(message: a2a_pb2.Message) -> BusyPolicy:
    """The conversation busy policy a new message asks for (ENQUEUE unless its metadata
    names another); InvalidArgumentError for a name that is none."""
    fields = message.metadata.fields
    if BUSY_POLICY_KEY not in fields:
        return BusyPolicy.ENQUEUE
    value = fields[BUSY_POLICY_KEY].string_value
    if value not in _POLICIES:
        problem = f"is one of {', '.join(sorted(_POLICIES))}"
        raise InvalidArgumentError([FieldViolation(f"message.metadata.{BUSY_POLICY_KEY}", problem)])
    return _POLICIES[value]
