"""What the engine does for the tasks of conversations.

A task of a conversation is admitted by its busy policy (`agent.conversations.busy`),
waits for its turn before it takes a running slot, is sent the earlier turns
that fit its agent's memory policy (`prepare`: `agent.conversations.history`, and a
compaction when they no longer fit), and when it has ended adds its own turn,
exactly once, then lets the next task of the conversation run (`finish`). The
same holds when another replica took the task over: the turn comes from the
task and its event log, not from the process that ran it.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import replace

import structlog

from agent.conversations import compaction
from agent.conversations.busy import Cancel
from agent.conversations.history import Selection, halved, select, window
from agent.conversations.service import Conversations
from agent.conversations.turns import turn_from, turn_of
from agent.failures import WaitExpiredError
from agent.llm.roles import role_model
from agent.llm.window.encodings import Encodings
from agent.llm.window.tokens import TokenCounter
from agent.parked import Parked, Waiting
from agent.running.lifecycle import persist
from agent.running.run import TaskRun
from agent.tool_use.people import PersonWaits
from core.errors import ConversationNotFoundError, TaskNotFoundError
from records import events as ev
from records.conversations.model import BusyPolicy, Conversation, ConversationMessage
from records.conversations.policy import MemoryPolicy
from records.execution import ExecutionMode
from records.tasks import Task
from records.waits import WaitKind, WaitState
from stores.conversations.base import ConversationStore
from stores.tasks.base import TaskStore

log = structlog.get_logger(__name__)

BACKOFF_SECONDS = 30.0
"""After a summary of a conversation fails, none is tried for this long (doubling with
each failure in a row, up to `MAX_BACKOFF_SECONDS`); its older turns are left out."""
MAX_BACKOFF_SECONDS = 600.0
MAX_BACKOFFS = 10_000
PAGE_TURNS = 16
"""Turns read at a time to choose a task's history from."""
MAX_READ_BYTES = 4 * 1024 * 1024
"""No further page is read for a task's history once this much text was (a turn is at
most about half a megabyte: MAX_TOOL_MESSAGES + 2 messages of MAX_STORED_CHARS)."""


TURN = "turn"
"""The slot of a task's wait for its turn in its conversation."""


class TaskMemory:
    """Conversations as the engine's tasks see them. One per process."""

    def __init__(
        self,
        conversations: Conversations,
        tasks: TaskStore,
        encodings: Encodings | None = None,
        defaults: MemoryPolicy | None = None,
        default_model: str = "",
        clock: Callable[[], float] = time.monotonic,
        recall: Callable[[TaskRun], Awaitable[None]] | None = None,
        extract: Callable[[Task, TaskRun | None], None] | None = None,
    ) -> None:
        self.recall = recall
        """Puts the user's long-term memories into a task's prompt (any task, in a
        conversation or not: `agent.knowledge.recall`); None when memory is off."""
        self.extract = extract
        """Starts, in the background, the extraction of memories from an ended task's turn
        when its agent asks for it (`agent.knowledge.extraction`); never raises."""
        self.conversations = conversations
        self._store = conversations.store
        self._gate = conversations.gate
        self._tasks = tasks
        self._encodings = encodings or Encodings(None)
        self._defaults = defaults or MemoryPolicy()
        self._default_model = default_model
        self._clock = clock
        self._backoff: dict[str, tuple[int, float]] = {}
        """Conversations whose summary failed: (failures in a row, no new try before)."""
        self.turn_came: Callable[[str, str], Awaitable[None]] | None = None
        """Nudges the wait of the task first in line once a task lets its conversation go
        (tenant, task id), which wakes it to take its turn (`agent.scheduling.parking`)."""
        self._gate.finish = self.finish  # a stale blocker is finished by whoever it blocks

    def policy(self, task: Task) -> MemoryPolicy:
        """The memory policy of a task: its agent's settings over the server's. A model
        without tool calls (text ReAct) gets earlier tool calls summarised, not kept."""
        policy = self._defaults.overridden(task.agent.memory if task.agent else {})
        if task.mode is ExecutionMode.TEXT_REACT and policy.tool_calls == "keep":
            policy = replace(policy, tool_calls="summarize")
        return policy

    def counter(self, task: Task) -> TokenCounter:
        """Counts tokens for the model that answers a task (its agent's, else the server's),
        chosen as the task's run chooses it."""
        return self._encodings.for_model(role_model(task.agent, "executor", self._default_model))

    async def admit(self, task: Task, policy: BusyPolicy, cancel: Cancel) -> None:
        """Take the task's conversation, or act on its busy policy (ConversationBusyError
        for REJECT)."""
        await self._gate.admit(task.tenant, task.conversation_id, task.task_id, policy, cancel)

    async def take_turn(self, run: TaskRun) -> None:
        """Return once the task holds its conversation; Parked (a wait for its turn,
        answered when the task before it lets go) while the tasks before it run."""
        task = run.task
        people = PersonWaits(run)
        if await self._gate.try_turn(task):  # its turn: nothing to wait for
            if run.state.resumed is not None:  # woken: the wait it parked on is over
                await people.settle(WaitKind.TURN, TURN, {})
            return
        wait, _ = await people.open(WaitKind.TURN, TURN, detail=task.conversation_id)
        if await self._gate.try_turn(task):  # looked again once its wait is open: never missed
            await people.settle(WaitKind.TURN, TURN, {})
            return
        if wait.state is not WaitState.OPEN:  # only the task itself answers it, on its turn
            await people.taken(wait)
            raise WaitExpiredError(
                f"its turn in conversation {task.conversation_id} did not come in time"
            )
        detail = f"waiting for its turn in conversation {task.conversation_id}"
        raise Parked([Waiting(WaitKind.TURN, TURN, False, wait.changes, detail)])

    async def try_turn(self, task: Task) -> bool:
        """Whether the task holds its conversation now (taking it if its turn came)."""
        return await self._gate.try_turn(task)

    async def release(self, task: Task) -> None:
        await self._gate.release(task)

    async def prepare(self, run: TaskRun) -> None:
        """Give `run` the earlier turns it is sent (compacting them first when they no
        longer fit and its policy says so). A resumed run keeps what it had."""
        task = run.task
        if run.transcript.history is not None:
            return
        policy, counter = self.policy(task), run.counter
        conversation, recent, chosen = await self._read(task, policy, counter)
        if chosen.fold_through and policy.compaction == "summarize":
            chosen = await self._compact(run, conversation, recent, policy) or chosen
        run.transcript.history = chosen.history
        await run.checkpoint()

    async def _read(
        self, task: Task, policy: MemoryPolicy, counter: TokenCounter
    ) -> tuple[Conversation, list[ConversationMessage], Selection]:
        return await read_history(self._store, task.tenant, task.conversation_id, policy, counter)

    async def _compact(
        self,
        run: TaskRun,
        conversation: Conversation,
        recent: list[ConversationMessage],
        policy: MemoryPolicy,
    ) -> Selection | None:
        """Fold older turns into the summary (unless summaries of this conversation failed
        lately: then they are left out until the back-off passes); the history then."""
        key = conversation.conversation_id
        if self._backoff.get(key, (0, 0.0))[1] > self._clock():
            return None
        counter = run.counter
        target = select(conversation, recent, halved(policy), counter).fold_through
        done = await compaction.compact(run, self._store, conversation, target, policy, counter)
        if done is None:
            failures = self._backoff.get(key, (0, 0.0))[0] + 1
            wait = min(BACKOFF_SECONDS * 2 ** (failures - 1), MAX_BACKOFF_SECONDS)
            if len(self._backoff) > MAX_BACKOFFS:
                self._backoff.clear()
            self._backoff[key] = (failures, self._clock() + wait)
            return None
        self._backoff.pop(key, None)
        summary, through = done
        folded = through - conversation.summarized_through
        conversation = replace(conversation, summary=summary, summarized_through=through)
        chosen = select(conversation, [m for m in recent if m.index > through], policy, counter)
        history = chosen.history
        await run.transcript.emit(
            ev.HistoryCompacted(
                folded, through, counter.count(summary), history.tokens, history.saved
            )
        )
        return chosen

    async def finish(self, task: Task, run: TaskRun | None = None) -> bool:
        """The ended `task`'s turn added to its conversation if it held it (once, whoever
        calls: a task that only waited in line adds none), then the conversation let go
        for the next task. False, and the conversation kept, when the turn could not be
        added (a later `finish`, e.g. by the task it blocks, tries again). `run`, when the
        task ended here, gives its tool calls (else its event log does). Never raises."""
        if self.extract is not None:  # runs on its own: the end event does not wait for it
            self.extract(task, run)
        if not task.conversation_id:
            return True
        try:
            if await self._gate.running(task.tenant, task.conversation_id) == task.task_id:
                await persist(lambda: self._append(task, run))
        except ConversationNotFoundError:
            pass  # deleted meanwhile: nothing to add to
        except Exception:
            log.exception(
                "could not add a task's turn to its conversation; it keeps it",
                task_id=task.task_id,
                conversation_id=task.conversation_id,
            )
            return False
        try:
            await self._gate.release(task)
            following = await self._gate.next_in_line(task.tenant, task.conversation_id)
        except Exception:
            log.exception("could not let go of a conversation", task_id=task.task_id)
            return False
        if following and self.turn_came is not None:
            await self.turn_came(task.tenant, following)
        return True

    async def _append(self, task: Task, run: TaskRun | None) -> None:
        counter = run.counter if run is not None else self.counter(task)
        if run is not None and run.ran_here and run.state.resumed is None:  # all in this run
            turn = turn_from(task, run.transcript.tool_log, counter)
        else:  # ran elsewhere, or resumed here: the calls of every process are in its log
            try:
                events = self._tasks.read_events(task.tenant, task.task_id)
                turn = await turn_of(task, events, counter)
            except TaskNotFoundError:  # its log expired: the turn without its tool calls
                turn = turn_from(task, (), counter)
        await self._store.append_turn(task.tenant, task.conversation_id, turn)


async def read_history(
    store: ConversationStore,
    tenant: str,
    conversation_id: str,
    policy: MemoryPolicy,
    counter: TokenCounter,
) -> tuple[Conversation, list[ConversationMessage], Selection]:
    """The conversation, its newest messages after its summary and the history chosen from
    them. The newest turns come a page at a time (the first page with the conversation,
    in one read), further pages only while every turn read so far is kept and less than
    `MAX_READ_BYTES` was read: never more than a choice needs."""
    wanted = window(policy)
    read = min(wanted, PAGE_TURNS)
    conversation, recent = await store.snapshot(tenant, conversation_id, read)
    chosen = select(conversation, recent, policy, counter)
    size = sum(len(m.content) + len(m.arguments) for m in recent)
    while read < wanted and recent and size < MAX_READ_BYTES:
        oldest = recent[0].index
        if chosen.fold_through != oldest - 1 or oldest - 1 <= conversation.summarized_through:
            break  # an older turn would not be kept, or there is none
        after = conversation.summarized_through
        turns = min(PAGE_TURNS, wanted - read)
        older = await store.recent(tenant, conversation_id, after, turns, before=oldest)
        if not older:
            break
        read += PAGE_TURNS
        size += sum(len(m.content) + len(m.arguments) for m in older)
        recent = older + recent
        chosen = select(conversation, recent, policy, counter)
    return conversation, recent, chosen
