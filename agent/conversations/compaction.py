"""The running summary: the oldest turns of a conversation, folded in by the model.

When the earlier turns no longer fit a task's memory budget and its agent's
policy says `compaction: summarize`, the model (the synthesizer's role) folds the
turns that do not fit, and some more, so that the next turns fit for a while,
into the conversation's running summary. The call is the task's: its tokens count
against the task's budget and show in its usage events. The new summary is
stored with the conversation (only ever moving forward) and announced with a
`history_compacted` event. A model that fails or times out costs the summary,
never the task: those turns are then left out instead. A summary call that spends
the task's token budget costs the summary too: its reply is dropped (never a
partial answer of the task), and the task then stops for its budget as after any
other call.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence

import structlog

from agent import prompts
from agent.conversations.history import summary_limit
from agent.limits import LimitReached
from agent.llm.base import ModelError
from agent.llm.window.tokens import TokenCounter, fit
from agent.running.run import TaskRun
from records.conversations.model import Conversation, ConversationMessage
from records.conversations.policy import MemoryPolicy
from records.messages import Message, ModelSettings
from stores.conversations.base import ConversationStore

log = structlog.get_logger(__name__)

LINE_TOKENS = 150
"""Each message's share of the transcript the model reads."""
PAGE = 50
"""Messages read from the store at a time while a chunk is gathered."""


def line(message: ConversationMessage, counter: TokenCounter) -> str:
    """One message as a transcript line. Its text is a JSON string, so that a newline
    or a `[n] user:` inside a message can never pass for a line of its own."""
    if message.role == "tool":
        arguments = fit(message.arguments, LINE_TOKENS // 3, counter)
        head = f"[{message.index}] tool {message.tool_name} {json.dumps(arguments)} -> "
    else:
        head = f"[{message.index}] {message.role}: "
    return head + json.dumps(fit(message.content, LINE_TOKENS, counter), ensure_ascii=False)


def transcript(messages: Sequence[ConversationMessage], counter: TokenCounter) -> str:
    return "\n".join(line(message, counter) for message in messages)


async def chunk(
    store: ConversationStore,
    conversation: Conversation,
    through: int,
    tokens: int,
    counter: TokenCounter,
) -> tuple[list[str], int]:
    """The transcript lines of the oldest messages not yet summarised, up to number
    `through`, within `tokens` (at least one line), rewound ones left out; and the number
    of the last one read."""
    lines: list[str] = []
    size, last = 0, conversation.summarized_through
    while last < through:
        want = min(PAGE, through - last)
        page = await store.messages(conversation.tenant, conversation.conversation_id, last, want)
        for message in page:
            if message.rewound:  # taken back: never folded into the summary
                last = message.index
                continue
            text = line(message, counter)
            cost = counter.count(text) + 1
            if lines and size + cost > tokens:
                return lines, last
            lines.append(text)
            size, last = size + cost, message.index
        if len(page) < want:
            break
    return lines, last


async def compact(
    run: TaskRun,
    store: ConversationStore,
    conversation: Conversation,
    through: int,
    policy: MemoryPolicy,
    counter: TokenCounter,
) -> tuple[str, int] | None:
    """Fold the oldest messages, up to number `through`, into the summary: as many as a
    transcript within the policy's budget holds (the rest wait for the next compaction).
    The new summary and the number of the last message it covers; None when the model
    could not give one (nothing is stored then)."""
    lines, last = await chunk(store, conversation, through, policy.budget_tokens, counter)
    if not lines:
        return None
    limit = summary_limit(policy)
    messages = [
        Message("system", prompts.SUMMARIZER_SYSTEM),
        Message("user", prompts.summary_prompt(conversation.summary, "\n".join(lines), limit)),
    ]
    notes = len(run.transcript.notes)
    try:
        async with asyncio.timeout(run.config.step_timeout_seconds):
            response = await run.model(
                "synthesizer",
                "history",
                messages,
                settings=ModelSettings(max_tokens=limit),
                stream=False,
            )
    except (ModelError, TimeoutError, LimitReached) as error:
        del run.transcript.notes[notes:]  # the summariser's reply is no result of the task
        log.warning(
            "could not summarise a conversation; older turns are left out",
            conversation_id=conversation.conversation_id,
            error=str(error),
        )
        return None
    summary = fit(response.text.strip().replace("\x00", ""), limit, counter)
    if not summary:
        return None
    await store.set_summary(conversation.tenant, conversation.conversation_id, summary, last)
    return summary, last
