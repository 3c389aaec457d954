"""Conversations of every tenant: the conversation RPCs go through here.

Ids are checked before any store sees them (a malformed id is INVALID_ARGUMENT);
another tenant's conversation is NOT_FOUND exactly like an unknown one. Within a
tenant a conversation is its creator's: reading it, running a task in it (which
may interrupt the task running there) and deleting it need its creator, or a
principal with one of the approver roles (PERMISSION_DENIED otherwise), as
answering another principal's question does.

A fork or a rewind names its point as a turn (`after_turn`) or as the task that added
it (`after_task_id`), exactly one of them. A fork is made after turn 1 to the last
(an empty fork would be a new conversation: CreateConversation makes those); a rewind
after turn 0 (every turn taken back) to the last. Both are refused with
CONVERSATION_BUSY while a task of the conversation runs or waits: that task reads the
history when it starts and adds its turn when it ends, and either would then be
wrong. The fork belongs to its caller; it takes the original's title and labels
unless the request gives its own.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

from agent.conversations.busy import BusyGate
from agent.requests import label_violations
from core.errors import (
    ConversationBusyError,
    ConversationNotFoundError,
    FieldViolation,
    InvalidArgumentError,
)
from core.identity import Principal
from core.roles import DEFAULT_ROLES, Action, RoleTable
from records.conversations.model import (
    MAX_TITLE_CHARS,
    Conversation,
    ConversationMessage,
    ConversationQuery,
    conversation_id_problem,
    new_conversation_id,
)
from records.paging import Page, PositionCursor, TimeCursor
from stores.conversations.base import ConversationStore, point_problem


def checked_id(conversation_id: str, field: str = "conversation_id") -> str:
    """`conversation_id`, or InvalidArgumentError saying what is wrong with it."""
    if not conversation_id:
        raise InvalidArgumentError([FieldViolation(field, "is required")])
    problem = conversation_id_problem(conversation_id)
    if problem is not None:
        raise InvalidArgumentError([FieldViolation(field, problem)])
    return conversation_id


def _title_problem(title: str) -> str | None:
    if len(title) > MAX_TITLE_CHARS:
        return f"is {len(title)} characters; at most {MAX_TITLE_CHARS}"
    if any(unicodedata.category(c) in ("Cc", "Cs") for c in title):
        return "must not hold control characters"
    return None


def _check_title_and_labels(title: str, labels: Mapping[str, str]) -> None:
    """InvalidArgumentError naming what is wrong with a conversation's title and labels."""
    violations = label_violations(labels)
    problem = _title_problem(title)
    if problem is not None:
        violations.append(FieldViolation("title", problem))
    if violations:
        raise InvalidArgumentError(violations)


MAX_TURNS = 10_000
"""Turns a conversation may hold by default (AGENTD_CONVERSATION_MAX_TURNS)."""
MAX_PAGE_BYTES = 3 * 1024 * 1024
"""A page of messages stays under this size (gRPC refuses a message over 4 MiB)."""
MESSAGE_OVERHEAD_BYTES = 128
"""A message's fields other than its text, in a page (index, role, times, ids)."""


def page_bytes(message: ConversationMessage) -> int:
    """About what `message` weighs in a page on the wire."""
    text = message.content + message.arguments + message.tool_name + message.task_id
    return len(text.encode("utf-8", "surrogatepass")) + MESSAGE_OVERHEAD_BYTES


@dataclass(frozen=True, slots=True)
class Point:
    """Where a fork or a rewind cuts a conversation: after a turn, or after the turn of a
    task (exactly one of them is given)."""

    after_turn: int | None = None
    after_task_id: str | None = None


class Conversations:
    """The conversations' store and the gate that runs their tasks one at a time."""

    def __init__(
        self,
        store: ConversationStore,
        gate: BusyGate,
        roles: RoleTable = DEFAULT_ROLES,
        *,
        max_turns: int = MAX_TURNS,
    ) -> None:
        self.store = store
        self.gate = gate
        self._roles = roles
        self._max_turns = max_turns

    async def create(
        self, caller: Principal, title: str = "", labels: Mapping[str, str] | None = None
    ) -> Conversation:
        _check_title_and_labels(title, labels or {})
        conversation = Conversation(
            new_conversation_id(), caller.tenant, caller.id, title, dict(labels or {})
        )
        await self.store.create(conversation)
        return conversation

    async def get(self, caller: Principal, conversation_id: str) -> Conversation:
        """A conversation `caller` may use: NOT_FOUND for an unknown one or another
        tenant's, PERMISSION_DENIED for another principal's (unless an approver)."""
        conversation = await self.store.get(caller.tenant, checked_id(conversation_id))
        if conversation.created_by != caller.id:
            self._roles.require(caller.roles, Action.USE_ANOTHERS_CONVERSATION)
        return conversation

    async def for_task(self, caller: Principal, conversation_id: str) -> Conversation:
        """A conversation `caller` may run a task in (`get`), which has room for a turn
        (InvalidArgumentError once it holds `max_turns`)."""
        conversation = await self.get(caller, conversation_id)
        if conversation.turn_count >= self._max_turns:
            problem = f"holds {self._max_turns} turns, as many as one may; start a new one"
            raise InvalidArgumentError([FieldViolation("conversation_id", problem)])
        return conversation

    async def page(
        self, caller: Principal, conversation_id: str, after: PositionCursor | None, size: int
    ) -> tuple[Conversation, Page[ConversationMessage, PositionCursor], str]:
        """The conversation; a page of at most `size` of its messages after the cursor
        `after` (a message number) that fit `MAX_PAGE_BYTES` (at least one), with the
        cursor of the next when more follow; and the task running in it ("" when none)."""
        conversation = await self.get(caller, conversation_id)
        start = after.position if after is not None else 0
        found = await self.store.messages(caller.tenant, conversation_id, start, size + 1)
        messages: list[ConversationMessage] = []
        weight = 0
        for message in found[:size]:
            weight += page_bytes(message)
            if messages and weight > MAX_PAGE_BYTES:
                break
            messages.append(message)
        page = Page.cut(found, len(messages), lambda m: PositionCursor(m.index))
        running = await self.gate.running(caller.tenant, conversation_id)
        return conversation, page, running

    async def list(self, query: ConversationQuery) -> Page[Conversation, TimeCursor]:
        """A page of the caller's conversations (`ConversationStore.list`)."""
        return await self.store.list(query)

    async def delete(self, caller: Principal, conversation_id: str) -> None:
        """Delete it with its messages; ConversationBusyError while a task of it runs or
        waits (its turn could not be kept)."""
        await self.get(caller, conversation_id)
        busy = await self.gate.busy(caller.tenant, conversation_id)
        if busy:
            raise ConversationBusyError(conversation_id, busy)
        if not await self.store.delete(caller.tenant, conversation_id):
            raise ConversationNotFoundError(conversation_id)

    async def fork(
        self,
        caller: Principal,
        conversation_id: str,
        point: Point,
        title: str = "",
        labels: Mapping[str, str] | None = None,
    ) -> Conversation:
        """A new conversation of `caller` sharing the turns of `conversation_id` through
        the point (`ConversationStore.fork`)."""
        _check_title_and_labels(title, labels or {})
        original = await self.get(caller, conversation_id)
        after_turn = await self._turn(caller, original, point, lowest=1)
        await self._not_busy(caller, conversation_id)
        fork = Conversation(
            new_conversation_id(),
            caller.tenant,
            caller.id,
            title or original.title,
            dict(labels or original.labels),
        )
        return await self.store.fork(caller.tenant, conversation_id, after_turn, fork)

    async def rewind(self, caller: Principal, conversation_id: str, point: Point) -> Conversation:
        """Take the turns after the point out of what the conversation's tasks are sent
        (`ConversationStore.rewind`)."""
        conversation = await self.get(caller, conversation_id)
        after_turn = await self._turn(caller, conversation, point, lowest=0)
        await self._not_busy(caller, conversation_id)
        return await self.store.rewind(caller.tenant, conversation_id, after_turn)

    async def _not_busy(self, caller: Principal, conversation_id: str) -> None:
        busy = await self.gate.busy(caller.tenant, conversation_id)
        if busy:
            raise ConversationBusyError(
                conversation_id,
                busy,
                f"conversation {conversation_id!r} has a task running or waiting "
                f"(task {busy!r}); fork or rewind it once the task has ended",
            )

    async def _turn(
        self, caller: Principal, conversation: Conversation, point: Point, lowest: int
    ) -> int:
        """The turn `point` names in `conversation`, or InvalidArgumentError."""
        if (point.after_turn is None) == (point.after_task_id is None):
            problem = "give the point as after_turn or as after_task_id, one of them"
            raise InvalidArgumentError([FieldViolation("after_turn", problem)])
        if point.after_task_id is not None:
            if not point.after_task_id:
                raise InvalidArgumentError([FieldViolation("after_task_id", "is empty")])
            turn = await self.store.turn_of(
                caller.tenant, conversation.conversation_id, point.after_task_id
            )
            if turn == 0:
                unknown = f"no turn of conversation {conversation.conversation_id} is this task's"
                raise InvalidArgumentError([FieldViolation("after_task_id", unknown)])
            return turn
        after_turn = point.after_turn or 0
        out_of_range = point_problem(after_turn, conversation.turn_count, lowest)
        if out_of_range is not None:
            raise InvalidArgumentError([FieldViolation("after_turn", out_of_range)])
        return after_turn
