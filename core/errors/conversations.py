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
            "end, or send busy_policy ENQUEUE, INTERRUPT, STEER or FOLLOW_UP",
            metadata={"conversation_id": conversation_id, "task_id": task_id, "busy": self.busy},
        )

    busy = "TASK_RUNNING"
    """Why the conversation refused (the `busy` metadata): a task runs or waits in it."""


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

    busy = "LINE_FULL"


class FollowUpQueuedError(ConversationBusyError):
    """FOLLOW_UP refused: a task waits already to be the conversation's next turn."""

    busy = "FOLLOW_UP_QUEUED"

    def __init__(self, conversation_id: str, task_id: str, queued_task_id: str) -> None:
        self.queued_task_id = queued_task_id
        waiting = f" (task {queued_task_id!r})" if queued_task_id else ""
        super().__init__(
            conversation_id,
            task_id,
            f"conversation {conversation_id!r} has a task running and a follow-up waiting"
            f"{waiting}; one follow-up may wait: send this one when the waiting task has "
            "started, or steer the running task (busy_policy STEER)",
        )
        self.metadata["queued_task_id"] = queued_task_id
