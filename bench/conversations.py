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

Forking: ForkConversation's store work (`SqlConversationStore.fork`, on the embedded
SQLite database a server uses by default) at turn 5,000 of a 10,000-turn conversation
and at turn 5 of a 10-turn one, p99 over `FORKS` forks each, taken in turns. The long one is filled
directly through the database (a turn row a turn, summaries kept every 100 turns), as
the store would have written it. Its targets: at most 50 ms, and within 5 ms of the
short one (a fork costs the same whatever it shares).
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
from stores.conversations.sql_rows import encode
from stores.sql.database import Database
from stores.sql.engine import migrate
from stores.sql.schema import conversation_summaries, conversation_turns, conversations

TURNS = 200
FORKS = 300
LONG_TURNS = 10_000
FORK_TARGET_MS = 50.0
FORK_SPREAD_MS = 5.0
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


async def _fill_directly(database: Database, turns: int) -> str:
    """A conversation of `turns` two-message turns, written as the store writes them but
    in one transaction (10,000 turns in about a second)."""
    store = SqlConversationStore(database)
    conversation = Conversation(new_conversation_id(), "bench", "alice", "long")
    await store.create(conversation)
    cid = conversation.conversation_id
    now = conversation.created_at
    rows, summaries = [], []
    for n in range(1, turns + 1):
        task = f"task_{n:024x}"
        pair = (
            ConversationMessage("user", f"question {n} about the order", task, tokens=12),
            ConversationMessage("assistant", f"answer {n}: it ships tomorrow", task, tokens=14),
        )
        rows.append(
            {
                "conversation_id": cid,
                "turn": n,
                "task_id": task,
                "first_index": 2 * n - 1,
                "message_count": 2,
                "tokens_through": 26 * n,
                "messages": encode(pair),
                "created_at": now,
            }
        )
        if n % 100 == 0:
            summaries.append(
                {
                    "conversation_id": cid,
                    "summarized_through": 2 * n - 40,
                    "summary": f"summary through turn {n - 20}",
                    "created_at": now,
                }
            )
    async with database.engine.begin() as connection:
        await connection.execute(conversation_turns.insert(), rows)
        if summaries:
            await connection.execute(conversation_summaries.insert(), summaries)
        last = summaries[-1] if summaries else {"summary": "", "summarized_through": 0}
        await connection.execute(
            conversations.update()
            .where(conversations.c.conversation_id == cid)
            .values(
                turn_count=turns,
                message_count=2 * turns,
                total_tokens=26 * turns,
                summary=last["summary"],
                summarized_through=last["summarized_through"],
            )
        )
    return cid


async def _fork_ms(store: SqlConversationStore, cid: str, at_turn: int) -> float:
    fork = Conversation(new_conversation_id(), "bench", "alice")
    start = time.perf_counter()
    await store.fork("bench", cid, at_turn, fork)
    return (time.perf_counter() - start) * 1000


async def _forks_p99_ms(store: SqlConversationStore, long: str, short: str) -> tuple[float, float]:
    """p99 of FORKS forks of each, taken in turns (long, short, long, ...) so that both
    meet the same moments of the machine: their difference is the conversation's length,
    not what else ran meanwhile."""
    long_times, short_times = [], []
    for _ in range(FORKS):
        long_times.append(await _fork_ms(store, long, LONG_TURNS // 2))
        short_times.append(await _fork_ms(store, short, 5))
    p99 = [statistics.quantiles(times, n=100)[98] for times in (long_times, short_times)]
    return p99[0], p99[1]


async def forks() -> None:
    print(f"Forking (SQLite; p99 of {FORKS} forks)")
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite+aiosqlite:///{Path(folder) / 'forks.db'}"
        await migrate(url)
        database = Database.open(url)
        try:
            store = SqlConversationStore(database)
            long = await _fill_directly(database, LONG_TURNS)
            short = await _fill_directly(database, 10)
            for _ in range(20):  # warm: connections, statement caches
                await _fork_ms(store, short, 5)
                await _fork_ms(store, long, LONG_TURNS // 2)
            long_ms, short_ms = await _forks_p99_ms(store, long, short)
        finally:
            await database.close()
    for name, ms in ((f"turn 5,000 of {LONG_TURNS:,}", long_ms), ("turn 5 of 10", short_ms)):
        print(
            f"  fork at {name:<20} p99 {ms:.3f} ms   target {FORK_TARGET_MS:g} ms"
            f"   ratio {ms / FORK_TARGET_MS:.2f}"
        )
    spread = long_ms - short_ms
    print(
        f"  long minus short        {spread:+.3f} ms   target within {FORK_SPREAD_MS:g} ms"
        f"   ratio {abs(spread) / FORK_SPREAD_MS:.2f}"
    )


async def main() -> None:
    await forks()
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
