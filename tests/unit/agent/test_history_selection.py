"""Choosing the earlier turns a task of a conversation is sent (pure: no store, no model)."""

from __future__ import annotations

from agent.conversations.history import halved, select, window
from agent.llm.window.tokens import ESTIMATE, message_tokens
from records.conversations.model import Conversation, ConversationMessage, MessageRole
from records.conversations.policy import MemoryPolicy
from records.messages import Message


def _conversation(
    turns: int, words: int = 10, summary: str = "", through: int = 0
) -> tuple[Conversation, list[ConversationMessage]]:
    messages: list[ConversationMessage] = []
    pairs: tuple[tuple[MessageRole, str], ...]
    for n in range(1, turns + 1):
        pairs = (("user", f"question {n} " + "w " * words), ("assistant", f"a{n}"))
        for role, text in pairs:
            index = len(messages) + 1
            tokens = message_tokens_of(role, text)
            messages.append(
                ConversationMessage(
                    role, text, f"t{n}", index, tokens=tokens, counted_with="estimate"
                )
            )
    total = sum(m.tokens for m in messages)
    conversation = Conversation(
        "c",
        "acme",
        "alice",
        message_count=len(messages),
        total_tokens=total,
        summary=summary,
        summarized_through=through,
    )
    return conversation, [m for m in messages if m.index > through]


def message_tokens_of(role: MessageRole, text: str) -> int:
    return message_tokens(Message(role, text), ESTIMATE)


def test_whole_newest_turns_within_the_message_count() -> None:
    conversation, recent = _conversation(30)
    chosen = select(conversation, recent, MemoryPolicy(max_messages=6), ESTIMATE)
    contents = [m.content for m in chosen.history.messages]
    assert [c.split(" ")[0:2] for c in contents[::2]] == [
        ["question", "28"],
        ["question", "29"],
        ["question", "30"],
    ]
    assert chosen.fold_through == 54  # the 27 turns before them
    assert chosen.history.saved == conversation.total_tokens - chosen.history.tokens


def test_the_token_budget_binds_and_is_never_passed() -> None:
    conversation, recent = _conversation(30, words=200)  # ~100 tokens a question
    for budget in (100, 250, 400, 1000):
        chosen = select(conversation, recent, MemoryPolicy(budget_tokens=budget), ESTIMATE)
        sent = sum(message_tokens(m, ESTIMATE) for m in chosen.history.messages)
        assert sent == chosen.history.tokens <= budget


def test_the_summary_counts_against_the_budget_and_is_held_to_half_of_it() -> None:
    long_summary = "s " * 2000
    conversation, recent = _conversation(10, summary=long_summary, through=4)
    chosen = select(conversation, recent, MemoryPolicy(budget_tokens=300), ESTIMATE)
    assert chosen.history.tokens <= 300
    assert len(chosen.history.summary) < len(long_summary)
    assert chosen.history.summary.endswith("more tokens cut]")
    assert all(int(m.content.split(" ")[1]) > 2 for m in chosen.history.messages[::2])


def test_nothing_earlier_fits_with_no_messages_allowed() -> None:
    conversation, recent = _conversation(3)
    chosen = select(conversation, recent, MemoryPolicy(max_messages=0), ESTIMATE)
    assert chosen.history.messages == ()
    assert chosen.fold_through == 6


def test_compaction_aims_at_half_the_room() -> None:
    policy = MemoryPolicy(budget_tokens=1000, max_messages=20)
    smaller = halved(policy)
    assert (smaller.budget_tokens, smaller.max_messages) == (500, 10)
    assert window(policy) == 11  # turns count two messages at least


def test_a_model_without_tool_calls_gets_earlier_tool_calls_summarised() -> None:
    from agent.conversations.busy import BusyGate
    from agent.conversations.engine_hooks import TaskMemory
    from agent.conversations.service import Conversations
    from records.execution import ExecutionMode
    from records.tasks import Task
    from stores.conversation_slots.memory import InMemoryConversationSlots
    from stores.conversations.memory import InMemoryConversationStore
    from stores.tasks.memory import InMemoryTaskStore

    tasks = InMemoryTaskStore()
    gate = BusyGate(InMemoryConversationSlots(), tasks)
    memory = TaskMemory(
        Conversations(InMemoryConversationStore(), gate),
        tasks,
        defaults=MemoryPolicy(tool_calls="keep"),
    )
    task = Task("t1", "acme", "alice", "x", mode=ExecutionMode.TEXT_REACT, conversation_id="c")
    assert memory.policy(task).tool_calls == "summarize"
    task.mode = ExecutionMode.FUNCTION_CALLING
    assert memory.policy(task).tool_calls == "keep"
