"""Errors of tasks, their event logs and the language model they use."""

from __future__ import annotations

from core.errors.base import AgentdError


class TaskNotFoundError(AgentdError):
    """No task with that id is visible to the caller."""

    reason = "TASK_NOT_FOUND"

    def __init__(self, task_id: str) -> None:
        self.task_id = task_id
        super().__init__(f"no task with id {task_id!r}", metadata={"task_id": task_id})


class TaskAlreadyTerminalError(AgentdError):
    """The task has ended and cannot be changed any more."""

    reason = "TASK_ALREADY_TERMINAL"

    def __init__(self, task_id: str, status: str) -> None:
        self.task_id = task_id
        self.status = status
        super().__init__(
            f"task {task_id!r} has already ended ({status})",
            metadata={"task_id": task_id, "status": status},
        )


class TaskNotResumableError(AgentdError):
    """ResumeTask found no tool call of the task waiting to be resumed; `why` says what
    the task does instead."""

    reason = "TASK_NOT_RESUMABLE"

    def __init__(self, task_id: str, why: str) -> None:
        self.task_id = task_id
        self.why = why
        super().__init__(
            f"task {task_id!r} cannot be resumed: {why}", metadata={"task_id": task_id}
        )


class EventsExpiredError(AgentdError):
    """The task is known, but its event log is past retention and was dropped."""

    reason = "EVENTS_EXPIRED"

    def __init__(self, task_id: str, last_sequence: int) -> None:
        self.task_id = task_id
        self.last_sequence = last_sequence
        super().__init__(
            f"the events of task {task_id!r} are no longer retained; GetTask still has "
            "its final state",
            metadata={"task_id": task_id, "last_sequence": str(last_sequence)},
        )


class LLMNotConfiguredError(AgentdError):
    """No language model is configured; names the settings to set."""

    reason = "LLM_NOT_CONFIGURED"

    def __init__(self, settings: tuple[str, ...]) -> None:
        self.settings = settings
        super().__init__(
            "no language model is configured; set " + " and ".join(settings) + ", then restart "
            "agentd",
            metadata={"settings": ",".join(settings)},
        )


class LLMUnavailableError(AgentdError):
    """The model endpoint failed or could not be reached."""

    reason = "LLM_UNAVAILABLE"


class ContextTooLongError(AgentdError):
    """A request to the model did not fit its context window, even compacted once more
    after the endpoint said so."""

    reason = "CONTEXT_TOO_LONG"

    def __init__(self, model: str, detail: str) -> None:
        self.model = model
        super().__init__(
            f"the request to model {model!r} does not fit its context window, even "
            f"compacted: {detail}",
            metadata={"model": model},
        )


class PlanInvalidError(AgentdError):
    """The planner could not produce a valid plan, even after a repair attempt."""

    reason = "PLAN_INVALID"

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("the planner did not produce a valid plan: " + "; ".join(problems))
