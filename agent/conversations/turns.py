"""What a task leaves in its conversation when it ends: its turn.

The turn is the caller's message (the task's text), the tool calls the task made and
the steers it took, in their order (as written to its event log, redacted: from the run
that made them, or read back from the log when another process ran it), and its final
answer, or a line saying why it has none. Every message is held to a stored size, and
counted in tokens for the task's model.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable

from agent.llm.window.tokens import TokenCounter, message_tokens
from core.secrets import scrub
from records import events as ev
from records.conversations.model import (
    MAX_STEER_MESSAGES,
    MAX_TOOL_MESSAGES,
    ConversationMessage,
    MessageRole,
    Turn,
    cut,
)
from records.messages import Message, ToolCall
from records.tasks import Task, TaskStatus


def _message(
    role: MessageRole,
    content: str,
    task_id: str,
    counter: TokenCounter,
    tool_name: str = "",
    arguments: str = "",
) -> ConversationMessage:
    content = cut(content)
    calls = (ToolCall("x", tool_name, arguments),) if tool_name else ()
    tokens = message_tokens(Message(role, content, tool_calls=calls), counter)
    return ConversationMessage(
        role, content, task_id, 0, tool_name, arguments, tokens, counted_with=counter.name
    )


def answer_of(task: Task) -> str:
    """The assistant's side of a turn: the final answer, or why there is none."""
    if task.status is TaskStatus.COMPLETED and task.final_answer:
        return task.final_answer
    why = task.failure.message if task.failure else task.stop_detail
    state = task.status.value.replace("_", " ")
    noted = f"(No answer: the task ended {state}{f': {why}' if why else ''}.)"
    if task.final_answer:  # partial results gathered before it stopped
        return f"{noted}\n{task.final_answer}"
    return noted


def given(task: Task) -> str:
    """The files and images given with the task's input, named (the turn keeps them by
    their artifacts' names, never their content; a summary names them)."""
    if not task.input_parts:
        return ""
    named = ", ".join(f"{p.name} ({p.media_type})" for p in task.input_parts)
    return f"\n[given with this message, kept as artifacts of task {task.task_id}: {named}]"


def turn_from(task: Task, events: Iterable[ev.TurnEvent], counter: TokenCounter) -> Turn:
    """The turn of an ended `task` whose tool call events (as logged) and steers taken are
    `events`, in their order."""
    started: dict[str, ev.ToolCallStarted] = {}
    messages = [_message("user", scrub(task.goal) + given(task), task.task_id, counter)]
    calls = steers = 0
    for payload in events:
        if isinstance(payload, ev.ToolCallStarted):
            started[payload.call_id] = payload
        elif isinstance(payload, ev.TaskSteered):
            steers += 1
            if steers <= MAX_STEER_MESSAGES:
                messages.append(_message("user", scrub(payload.message), task.task_id, counter))
        elif payload.call_id in started:
            call = started.pop(payload.call_id)
            calls += 1
            if calls <= MAX_TOOL_MESSAGES:
                arguments = cut(json.dumps(call.arguments, ensure_ascii=False, default=str))
                messages.append(
                    _message("tool", payload.text, task.task_id, counter, call.tool_name, arguments)
                )
    answer = answer_of(task)
    if steers > MAX_STEER_MESSAGES:
        answer = f"({steers - MAX_STEER_MESSAGES} more messages of the user not kept.)\n{answer}"
    if calls > MAX_TOOL_MESSAGES:
        answer = f"({calls - MAX_TOOL_MESSAGES} more tool calls not kept.)\n{answer}"
    messages.append(_message("assistant", answer, task.task_id, counter))
    return Turn(task.task_id, tuple(messages))


async def turn_of(task: Task, events: AsyncIterator[ev.TaskEvent], counter: TokenCounter) -> Turn:
    """The turn of an ended `task`, its tool calls read from its event log up to the
    task's last event (its terminal event may not be written yet: the log is never
    waited on). For a task that another process ran (taken over, cancelled here)."""
    logged: list[ev.TurnEvent] = []
    received: dict[str, ev.TaskSteered] = {}
    try:
        if task.last_sequence > 0:
            async for event in events:
                payload = event.payload
                if isinstance(payload, ev.ToolCallStarted | ev.ToolCallFinished):
                    logged.append(payload)
                elif isinstance(payload, ev.TaskSteered):
                    received[payload.steer_id] = payload
                elif isinstance(payload, ev.SteerApplied) and payload.steer_id in received:
                    logged.append(received.pop(payload.steer_id))  # taken: in its place
                if event.sequence >= task.last_sequence:
                    break
    finally:
        close = getattr(events, "aclose", None)
        if close is not None:
            await close()
    return turn_from(task, logged, counter)
