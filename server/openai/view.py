"""A response as the log of its task makes it: the Responses events each task event maps
to, and the response object as it stands after them.

Everything here is a function of the task (its id, agent, conversation, creation time)
and of its log, never of the process: a stream resumed on another replica replays the
log from its start and produces the same items, ids and `sequence_number`s. The n-th
Responses event a task event maps to gets `sequence_number` = its sequence * 16 + n.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any

from records import events as ev
from records.tasks import Task, TaskStatus, TokenUsage

PER_EVENT = 16
"""Responses events one task event may map to, at most (`sequence_number` = seq * 16 + n)."""
SERVER_LABEL = "agentd"
"""The `server_label` of agentd's tool calls (`mcp_call`) and approval requests."""
APPROVAL_PREFIX = "mcpr_"

Json = dict[str, Any]


def response_id(task_id: str) -> str:
    return f"resp_{task_id}"


def approval_id(call_id: str) -> str:
    """The `mcp_approval_request`'s id of a call waiting to be approved."""
    return APPROVAL_PREFIX + call_id


def call_of_approval(request_id: str) -> str:
    """The call an `approval_request_id` names ("" when it names none)."""
    return request_id[len(APPROVAL_PREFIX) :] if request_id.startswith(APPROVAL_PREFIX) else ""


def usage_of(usage: TokenUsage) -> Json:
    return {
        "input_tokens": usage.prompt_tokens,
        "input_tokens_details": {"cached_tokens": usage.cached_prompt_tokens},
        "output_tokens": usage.completion_tokens,
        "output_tokens_details": {"reasoning_tokens": usage.reasoning_tokens},
        "total_tokens": usage.total_tokens,
    }


STATUSES = {
    TaskStatus.PENDING: "queued",
    TaskStatus.RUNNING: "in_progress",
    TaskStatus.INPUT_REQUIRED: "incomplete",
    TaskStatus.COMPLETED: "completed",
    TaskStatus.FAILED: "failed",
    TaskStatus.CANCELLED: "cancelled",
}
ENDINGS = {
    TaskStatus.COMPLETED: "response.completed",
    TaskStatus.FAILED: "response.failed",
    TaskStatus.CANCELLED: "response.failed",
}


def _text_item(item_id: str, text: str, status: str) -> Json:
    part = {"type": "output_text", "text": text, "annotations": [], "logprobs": []}
    return {
        "id": item_id,
        "type": "message",
        "role": "assistant",
        "status": status,
        "content": [part],
    }


@dataclass
class ResponseView:
    """A response built up from its task's log, one event at a time (`step`)."""

    task: Task
    output: list[Json] = field(default_factory=list)
    status: TaskStatus = TaskStatus.PENDING
    usage: TokenUsage = field(default_factory=TokenUsage)
    error: Json | None = None
    open_text: int | None = None
    """The output index of the message whose text is streaming, if any."""
    calls: dict[str, int] = field(default_factory=dict)
    """Output index of each tool call's `mcp_call` item."""
    started: bool = False

    @property
    def id(self) -> str:
        return response_id(self.task.task_id)

    def response(self) -> Json:
        """The response object as it stands."""
        task = self.task
        agent = task.agent.reference if task.agent is not None else ""
        incomplete = None
        if self.status is TaskStatus.INPUT_REQUIRED:
            incomplete = {"reason": "waiting_for_input"}
        answer: Json = {
            "id": self.id,
            "object": "response",
            "created_at": int(task.created_at.timestamp()),
            "status": STATUSES[self.status],
            "model": f"agent:{agent}" if agent else "agent:default",
            "output": copy.deepcopy(self.output),
            "error": self.error,
            "incomplete_details": incomplete,
            "instructions": None,
            "metadata": {},
            "parallel_tool_calls": False,
            "temperature": None,
            "top_p": None,
            "tool_choice": "auto",
            "tools": [],
            "usage": usage_of(self.usage),
            "store": bool(task.conversation_id),
        }
        if task.conversation_id:
            answer["conversation"] = {"id": task.conversation_id}
        return answer

    def reopened(self, after: int) -> Json:
        """The `response.created` a stream of a response moved on (an approval decided, a
        question answered) opens with, as it stands then: numbered in the last place of
        the task event it waited at (`after`), which no event of the log takes."""
        number = after * PER_EVENT + PER_EVENT - 1
        return {"type": "response.created", "response": self.response(), "sequence_number": number}

    def recorded(self) -> Json:
        """The response of a task whose log the live store let go (its history keeps the
        task's record alone): its status, its answer as one message, its usage."""
        task = self.task
        self.status, self.usage = task.status, task.usage
        if task.final_answer:
            item = _text_item(f"msg_{task.task_id}_answer", task.final_answer, "completed")
            self.output.append(item)
        if task.status in (TaskStatus.FAILED, TaskStatus.CANCELLED):
            said = task.failure.message if task.failure is not None else task.stop_detail
            code = "server_error" if task.status is TaskStatus.FAILED else "cancelled"
            self.error = {"code": code, "message": said or STATUSES[task.status]}
        return self.response()

    # -- one task event -------------------------------------------------------------------

    def step(self, event: ev.TaskEvent) -> list[Json]:
        """The Responses events `event` maps to, numbered."""
        found: list[Json] = []
        if not self.started:
            self.started = True
            found.append({"type": "response.created", "response": self.response()})
        found += self._events_of(event.payload, event.sequence)
        assert len(found) < PER_EVENT, "a task event maps to at most 15 Responses events"
        return [
            {**item, "sequence_number": event.sequence * PER_EVENT + index}
            for index, item in enumerate(found)
        ]

    def _events_of(self, payload: ev.EventPayload, sequence: int) -> list[Json]:
        if isinstance(payload, ev.UsageReported):
            self.usage = payload.task_total
        elif isinstance(payload, ev.StatusChanged):
            return self._status(payload)
        elif isinstance(payload, ev.TextDelta):
            return self._delta(payload.text, sequence)
        elif isinstance(payload, ev.StreamDiscarded):
            return self._close_text()
        elif isinstance(payload, ev.ToolCallStarted):
            return self._call_started(payload)
        elif isinstance(payload, ev.ToolCallFinished):
            return self._call_finished(payload)
        elif isinstance(payload, ev.ApprovalRequested):
            return self._approval(payload)
        elif isinstance(payload, ev.InputRequested):
            asked = self._close_text() + self._whole_text(payload.question, sequence)
            return [*asked, self._waiting()]
        elif isinstance(payload, ev.FinalAnswer):
            return self._final(payload.text, sequence)
        return []

    def _status(self, payload: ev.StatusChanged) -> list[Json]:
        self.status = payload.current
        if payload.current is TaskStatus.RUNNING:
            return [{"type": "response.in_progress", "response": self.response()}]
        ending = ENDINGS.get(payload.current)
        if ending is None:
            return []
        found = self._close_text()
        if payload.current in (TaskStatus.FAILED, TaskStatus.CANCELLED):
            code = "server_error" if payload.current is TaskStatus.FAILED else "cancelled"
            self.error = {"code": code, "message": payload.detail or STATUSES[payload.current]}
        return [*found, {"type": ending, "response": self.response()}]

    # -- text -----------------------------------------------------------------------------

    def _delta(self, text: str, sequence: int) -> list[Json]:
        found: list[Json] = []
        if self.open_text is None:
            self.open_text = len(self.output)
            item = _text_item(f"msg_{self.task.task_id}_{sequence}", "", "in_progress")
            self.output.append(item)
            found += self._added(item)
            part = {
                "type": "response.content_part.added",
                "part": copy.deepcopy(item["content"][0]),
            }
            found.append({**self._at(self.open_text), **part})
        index = self.open_text
        self.output[index]["content"][0]["text"] += text
        delta = {"type": "response.output_text.delta", "delta": text, "logprobs": []}
        found.append({**self._at(index), **delta})
        return found

    def _at(self, index: int) -> Json:
        return {"item_id": self.output[index]["id"], "output_index": index, "content_index": 0}

    def _added(self, item: Json) -> list[Json]:
        index = len(self.output) - 1
        return [
            {
                "type": "response.output_item.added",
                "output_index": index,
                "item": copy.deepcopy(item),
            }
        ]

    def _close_text(self) -> list[Json]:
        index = self.open_text
        if index is None:
            return []
        self.open_text = None
        item = self.output[index]
        item["status"] = "completed"
        part = item["content"][0]
        at = self._at(index)
        return [
            {**at, "type": "response.output_text.done", "text": part["text"], "logprobs": []},
            {**at, "type": "response.content_part.done", "part": copy.deepcopy(part)},
            {
                "type": "response.output_item.done",
                "output_index": index,
                "item": copy.deepcopy(item),
            },
        ]

    def _whole_text(self, text: str, sequence: int) -> list[Json]:
        return self._delta(text, sequence) + self._close_text()

    def _final(self, text: str, sequence: int) -> list[Json]:
        if self.open_text is not None:
            streamed = self.output[self.open_text]["content"][0]["text"]
            closed = self._close_text()
            if streamed == text or not text:
                return closed
            return closed + self._whole_text(text, sequence)
        last = self.output[-1] if self.output else None
        said = last is not None and last["type"] == "message" and last["content"][0]["text"]
        return [] if not text or said == text else self._whole_text(text, sequence)

    # -- tool calls -----------------------------------------------------------------------

    def _call_started(self, payload: ev.ToolCallStarted) -> list[Json]:
        found = self._close_text()
        item = {
            "id": f"mcp_{payload.call_id}",
            "type": "mcp_call",
            "server_label": SERVER_LABEL,
            "name": payload.tool_name,
            "arguments": json.dumps(payload.arguments, ensure_ascii=False, default=str),
            "status": "in_progress",
        }
        self.calls[payload.call_id] = len(self.output)
        self.output.append(item)
        index = len(self.output) - 1
        progress = {"type": "response.mcp_call.in_progress", "item_id": item["id"]}
        return [*found, *self._added(item), {**progress, "output_index": index}]

    def _call_finished(self, payload: ev.ToolCallFinished) -> list[Json]:
        index = self.calls.get(payload.call_id)
        if index is None:
            return []
        item = self.output[index]
        if payload.error is None:
            item.update(status="completed", output=payload.text)
            kind = "response.mcp_call.completed"
        else:
            error = {"type": "mcp_tool_execution_error", "content": payload.text or "failed"}
            item.update(status="failed", error=error)
            kind = "response.mcp_call.failed"
        return [
            {"type": kind, "item_id": item["id"], "output_index": index},
            {
                "type": "response.output_item.done",
                "output_index": index,
                "item": copy.deepcopy(item),
            },
        ]

    def _approval(self, payload: ev.ApprovalRequested) -> list[Json]:
        found = self._close_text()
        item = {
            "id": approval_id(payload.call_id),
            "type": "mcp_approval_request",
            "server_label": SERVER_LABEL,
            "name": payload.tool_name,
            "arguments": json.dumps(payload.arguments, ensure_ascii=False, default=str),
        }
        self.output.append(item)
        index = len(self.output) - 1
        done = {
            "type": "response.output_item.done",
            "output_index": index,
            "item": copy.deepcopy(item),
        }
        return [*found, *self._added(item), done, self._waiting()]

    def _waiting(self) -> Json:
        """The response waits for the caller (an approval, an answer): incomplete, until an
        input item with its id as `previous_response_id` moves it on."""
        return {"type": "response.incomplete", "response": self.response()}


def ends(event: ev.TaskEvent, floor: int) -> bool:
    """Whether a stream of the response ends at `event`: the task ended, or it waits for
    the caller (a request after `floor`: earlier ones were answered)."""
    waits = isinstance(event.payload, ev.ApprovalRequested | ev.InputRequested)
    return event.terminal or (waits and event.sequence > floor)
