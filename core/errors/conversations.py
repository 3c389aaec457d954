"""Errors of conversations."""

from __future__ import annotations

from core.errors.base import AgentdError


class ConversationNotFoundError(AgentdError):
    """No conversation of that id is visible to the caller (also another tenant's)."""

    reason = "CONVERSATION_NOT_FOUND"

    def __init__(self, conversation_id: str) -> None:
        self.conversation_id = conversation_id
        super().__init__(
            f"no conversation with id {conversation_id!r}",
            metadata={"conversation_id": conversation_id},
        )


class ConversationBusyError(AgentdError):
    """A task of the conversation is running (or waiting), and the request's busy policy
    is to refuse rather than wait or interrupt it."""

    reason = "CONVERSATION_BUSY"

    def __init__(self, conversation_id: str, task_id: str, message: str = "") -> None:
        self.conversation_id = conversation_id
        self.task_id = task_id
        detail = f" (task {task_id!r})" if task_id else ""
        super().__init__(
            message
            or f"conversation {conversation_id!r} has a task running{detail}; wait for it to "
            "end, or send busy_policy ENQUEUE or INTERRUPT",
            metadata={"conversation_id": conversation_id, "task_id": task_id},
        )


class ConversationLineFullError(ConversationBusyError):
    """ENQUEUE refused: as many tasks as a conversation may have wait in it already."""

    def __init__(self, conversation_id: str, task_id: str, limit: int) -> None:
        self.limit = limit
        super().__init__(
            conversation_id,
            task_id,
            f"conversation {conversation_id!r} has a task running and {limit} waiting, "
            "as many as may wait; send the next one when a task has ended",
        )
        self.metadata["waiting_limit"] = str(limit)
