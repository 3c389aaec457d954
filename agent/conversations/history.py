"""What a task of a conversation is sent of the earlier turns: pure, no I/O.

The newest turns are kept whole, newest first, while they fit the policy's budget
(tokens, the summary's included) and its message count; the running summary of
the oldest turns goes with them. Each earlier message is held to a size of its own
(an oversized tool result to `tool_result_tokens`, any other message to a quarter
of the budget), cut with a marker. Tool calls are kept as calls and results,
summarised in a line each within the answer they led to, or dropped, as the policy
says. The task's instructions and its own message are never part of this: they
are always sent.

What the model wrote from untrusted text is never given authority: the running
summary (written from the users' and tools' words) is a message of its own
after the system message, marked as data; summarised tool calls are a delimited
block of data, their outputs quoted, ahead of the answer they led to.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import groupby

from agent.llm.window.tokens import TOKENS_PER_MESSAGE, TokenCounter, fit, message_tokens
from records.conversations.history import (
    TOOLS_CLOSE,
    TOOLS_OPEN,
    History,
    summary_message,
    untagged,
)
from records.conversations.model import Conversation, ConversationMessage
from records.conversations.policy import MemoryPolicy
from records.messages import Message, ToolCall

MAX_ARGUMENT_CHARS = 2_000
TOOL_LINE_TOKENS = 60


@dataclass(frozen=True, slots=True)
class Selection:
    history: History
    fold_through: int
    """The last earlier message that is neither kept nor in the summary (0: none): what
    a compaction would fold in."""


def summary_limit(policy: MemoryPolicy) -> int:
    """The running summary's size: the policy's, and never over half the budget."""
    return max(1, min(policy.summary_tokens, policy.budget_tokens // 2))


def window(policy: MemoryPolicy) -> int:
    """How many of the newest turns to read to choose from: a turn counts at least two
    messages (the caller's and the answer), so no more can fit."""
    return policy.max_messages // 2 + 1


def select(
    conversation: Conversation,
    recent: Sequence[ConversationMessage],
    policy: MemoryPolicy,
    counter: TokenCounter,
) -> Selection:
    """The history of `conversation` that fits `policy`, from its newest messages after
    its summary (`recent`, oldest first)."""
    summary = fit(conversation.summary, summary_limit(policy), counter)
    used = message_tokens(summary_message(summary), counter) if summary else 0
    count = 0
    kept: list[list[Message]] = []
    first_kept = conversation.message_count + 1
    turns = [list(t) for _, t in groupby(recent, key=lambda m: m.task_id)]
    for turn in reversed(turns):
        rendered, stored, size = render_turn(turn, policy, counter)
        if count + stored > policy.max_messages or used + size > policy.budget_tokens:
            break
        kept.append(rendered)
        count, used = count + stored, used + size
        first_kept = turn[0].index
    messages = tuple(m for rendered in reversed(kept) for m in rendered)
    saved = max(0, conversation.total_tokens - used)
    history = History(summary, messages, used, saved)
    fold = first_kept - 1 if first_kept - 1 > conversation.summarized_through else 0
    return Selection(history, fold)


def render_turn(
    turn: Sequence[ConversationMessage], policy: MemoryPolicy, counter: TokenCounter
) -> tuple[list[Message], int, int]:
    """A stored turn as model messages, how many stored messages it counts for, and its
    size in tokens."""
    limit = max(policy.budget_tokens // 4, 32)
    rendered: list[Message] = []
    lines: list[str] = []
    stored = size = 0
    for message in turn:
        if message.role == "tool":
            if policy.tool_calls == "keep":
                pair = _tool_pair(message, policy, counter)
                rendered.extend(pair)
                size += sum(message_tokens(m, counter) for m in pair)
                stored += 1
            elif policy.tool_calls == "summarize":
                call = fit(
                    f"- {message.tool_name}({message.arguments})", TOOL_LINE_TOKENS // 2, counter
                )
                output = fit(message.content, TOOL_LINE_TOKENS // 2, counter)
                lines.append(untagged(f"{call} -> {json.dumps(output, ensure_ascii=False)}"))
            continue
        stored += 1
        known = message.counted_with == counter.name and message.tokens > 0
        if (
            known
            and message.tokens - TOKENS_PER_MESSAGE <= limit
            and not (message.role == "assistant" and lines)
        ):  # as stored, and counted for this model already
            rendered.append(Message(message.role, message.content))
            size += message.tokens
            continue
        text = fit(message.content, limit, counter)
        if message.role == "assistant" and lines:
            text = f"{TOOLS_OPEN}{chr(10).join(lines)}{TOOLS_CLOSE}\n\n{text}"
        rendered.append(Message(message.role, text))
        size += message_tokens(rendered[-1], counter)
    return rendered, stored, size


def _tool_pair(
    message: ConversationMessage, policy: MemoryPolicy, counter: TokenCounter
) -> list[Message]:
    """A kept tool call: the assistant's call and the tool's result (cut to its limit)."""
    call_id = f"history_{message.index}"
    arguments = message.arguments[:MAX_ARGUMENT_CHARS] or "{}"
    call = ToolCall(call_id, message.tool_name, arguments)
    result = fit(message.content, policy.tool_result_tokens, counter)
    return [
        Message("assistant", "", tool_calls=(call,)),
        Message("tool", result, tool_call_id=call_id, name=message.tool_name),
    ]


def halved(policy: MemoryPolicy) -> MemoryPolicy:
    """The policy a compaction aims at: the kept turns in half the room, so that the
    next turns fit for a while before the next compaction."""
    return replace(
        policy,
        budget_tokens=max(policy.budget_tokens // 2, 1),
        max_messages=policy.max_messages // 2,
    )
