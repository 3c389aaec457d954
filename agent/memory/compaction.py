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
from collections.abc import Sequence

import structlog

from agent import prompts
from agent.limits import LimitReached
from agent.llm.base import Message, ModelError, ModelSettings
from agent.llm.tokens import TokenCounter, fit
from agent.memory.history import summary_limit
from agent.memory.model import Conversation, ConversationMessage
from agent.memory.policy import MemoryPolicy
from agent.run import TaskRun
from stores.conversations.base import ConversationStore

log = structlog.get_logger(__name__)

MAX_FOLDED = 400
"""Messages read for one compaction; older ones beyond are folded in unread."""
LINE_TOKENS = 150
"""Each message's share of the transcript the model reads."""


def transcript(messages: Sequence[ConversationMessage], counter: TokenCounter) -> str:
    lines = []
    for message in messages:
        if message.role == "tool":
            text = f"[{message.index}] tool {message.tool_name}({message.arguments}) -> "
            text += message.content
        else:
            text = f"[{message.index}] {message.role}: {message.content}"
        lines.append(fit(text, LINE_TOKENS, counter))
    return "\n".join(lines)


async def compact(
    run: TaskRun,
    store: ConversationStore,
    conversation: Conversation,
    through: int,
    policy: MemoryPolicy,
    counter: TokenCounter,
) -> str | None:
    """Fold messages up to number `through` into the summary; the new summary, or None
    when the model could not give one (nothing is stored then)."""
    start = conversation.summarized_through
    folded = await store.messages(
        conversation.tenant, conversation.conversation_id, start, min(through - start, MAX_FOLDED)
    )
    limit = summary_limit(policy)
    messages = [
        Message("system", prompts.SUMMARIZER_SYSTEM),
        Message(
            "user",
            prompts.summary_prompt(conversation.summary, transcript(folded, counter), limit),
        ),
    ]
    notes = len(run.notes)
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
        del run.notes[notes:]  # the summariser's reply is no result of the task
        log.warning("could not summarise a conversation; older turns are left out",
                    conversation_id=conversation.conversation_id, error=str(error))  # fmt: skip
        return None
    summary = fit(response.text.strip().replace("\x00", ""), limit, counter)
    if not summary:
        return None
    await store.set_summary(conversation.tenant, conversation.conversation_id, summary, through)
    return summary
