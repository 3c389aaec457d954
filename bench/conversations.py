"""Conversation memory: what assembling a task's history costs at turn 200, and the tokens a
turn is sent with the memory budget against without it.

The conversation is 199 turns of a support chat (a question, one tool call, an
answer of about 40 tokens each), counted with tiktoken's o200k_base (gpt-4o) as
agentd counts them, under the default policy (2,000 tokens or 20 messages, tool calls
summarised, the oldest turns folded into a summary). Assembling is what a task does
before its first model call: read the conversation and its newest messages from the
store, choose what fits (`agent.conversations.engine_hooks.read_history`, as a task does). Its
target is 2 ms; the figure is the median of a bounded
number of runs, printed with its ratio to the target, for the in-process store and for
SQLite. Tokens per turn replay the 200 turns with compaction as the engine does it
(the model's summary stood in for by a fixed text of the policy's summary size).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from agent.conversations.engine_hooks import read_history
from agent.conversations.history import halved, select, summary_limit
from agent.conversations.turns import _message
from agent.llm.window.encodings import Encodings
from agent.llm.window.tokens import TokenCounter
from records.conversations.model import Conversation, ConversationMessage, Turn, new_conversation_id
from records.conversations.policy import MemoryPolicy
from stores.conversations.base import ConversationStore
from stores.conversations.memory import InMemoryConversationStore
from stores.conversations.sql import SqlConversationStore
from stores.sql.database import Database
from stores.sql.engine import migrate

TURNS = 200
RUNS = 200
TARGET_MS = 2.0
RANKS = Path(__file__).resolve().parent.parent / "var" / "tiktoken"
ANSWER = (
    "Your order {n} left our warehouse this morning and should arrive within two working "
    "days; the tracking link is in the confirmation e-mail, and you can change the "
    "delivery address until it ships."
)


def _turn(n: int, counter: TokenCounter) -> Turn:
    task = f"task_{n:024x}"
    return Turn(
        task,
        (
            _message("user", f"Where is my order {n}? I placed it on Monday.", task, counter),
            _message(
                "tool",
                f'{{"order": {n}, "status": "shipped"}}',
                task,
                counter,
                "order_status",
                f'{{"order": {n}}}',
            ),
            _message("assistant", ANSWER.format(n=n), task, counter),
        ),
    )


async def _fill(store: ConversationStore, counter: TokenCounter, turns: int) -> Conversation:
    conversation = Conversation(new_conversation_id(), "bench", "bench")
    await store.create(conversation)
    for n in range(1, turns + 1):
        await store.append_turn("bench", conversation.conversation_id, _turn(n, counter))
    return conversation


async def _assemble_ms(
    store: ConversationStore, conversation_id: str, policy: MemoryPolicy, counter: TokenCounter
) -> float:
    """The median time to read the conversation and choose its history (milliseconds)."""
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        await read_history(store, "bench", conversation_id, policy, counter)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def _replay(counter: TokenCounter, policy: MemoryPolicy) -> list[tuple[int, int]]:
    """Tokens of history sent at each turn: with the policy (compacting as the engine
    does), and without any budget (every earlier turn, rendered the same way)."""
    summary_text = " ".join(["summary"] * summary_limit(policy))
    unbounded = replace(policy, budget_tokens=10**9, max_messages=10**6)
    messages: list[ConversationMessage] = []
    conversation = Conversation("c", "bench", "bench")
    sent: list[tuple[int, int]] = []
    full = 0
    for n in range(1, TURNS + 1):
        everything = select(
            replace(conversation, summary="", summarized_through=0), messages, unbounded, counter
        ).history.tokens
        recent = [m for m in messages if m.index > conversation.summarized_through]
        chosen = select(conversation, recent, policy, counter)
        if chosen.fold_through:
            target = select(conversation, recent, halved(policy), counter).fold_through
            conversation = replace(conversation, summary=summary_text, summarized_through=target)
            recent = [m for m in recent if m.index > target]
            chosen = select(conversation, recent, policy, counter)
        sent.append((chosen.history.tokens, everything))
        for message in _turn(n, counter).messages:
            messages.append(replace(message, index=len(messages) + 1))
            full += message.tokens
        conversation = replace(
            conversation,
            message_count=len(messages),
            total_tokens=full,
            turn_count=n,
        )
    return sent


async def main() -> None:
    counter = Encodings(RANKS).for_model("gpt-4o")
    policy = MemoryPolicy()
    print(
        f"Conversation memory (turn {TURNS}; {counter.name}; budget {policy.budget_tokens} "
        f"tokens, {policy.max_messages} messages)"
    )
    memory = InMemoryConversationStore()
    kept = await _fill(memory, counter, TURNS - 1)
    in_process = await _assemble_ms(memory, kept.conversation_id, policy, counter)
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite+aiosqlite:///{Path(folder) / 'bench.db'}"
        await migrate(url)
        database = Database.open(url)
        try:
            sql = SqlConversationStore(database)
            stored = await _fill(sql, counter, TURNS - 1)
            sqlite = await _assemble_ms(sql, stored.conversation_id, policy, counter)
        finally:
            await database.close()
    for name, ms in (("in-process store", in_process), ("SQLite", sqlite)):
        print(
            f"  history for turn {TURNS}, {name:<16} p50 {ms:.3f} ms   target {TARGET_MS:g} ms"
            f"   ratio {ms / TARGET_MS:.2f}"
        )
    replay = _replay(counter, policy)
    for turn in (10, 50, 100, 200):
        budgeted, unbounded = replay[turn - 1]
        print(
            f"  turn {turn:>3}: history sent {budgeted:>6,} tokens with the budget, "
            f"{unbounded:>7,} without"
        )
    with_budget = sum(b for b, _ in replay)
    without = sum(u for _, u in replay)
    print(
        f"  over {TURNS} turns: {with_budget:,} tokens of history sent with the budget, "
        f"{without:,} without ({without / max(1, with_budget):.1f}x)"
    )
