"""Why a task fails: one error class per reason, and the one place an exception becomes one.

A task that cannot reach an answer ends FAILED with a `TaskFailure` (reason and
message) on the task and in an `error_occurred` event. The reasons are the
gateway-facing `ErrorReason` names without their prefix. Everything that
stops a task with an error goes through `failure_of`, so a new kind of
failure is added here and nowhere else.
"""

from __future__ import annotations

from enum import StrEnum

import structlog

from agent.llm.base import ModelError
from core.errors import (
    AgentdError,
    ContextTooLongError,
    GuardrailBlockedError,
    PlanInvalidError,
)
from core.faults import as_store_error
from records.tasks import StopReason

log = structlog.get_logger(__name__)


class FailureReason(StrEnum):
    LLM_UNAVAILABLE = "LLM_UNAVAILABLE"
    MODEL_OUTPUT_INVALID = "MODEL_OUTPUT_INVALID"
    TASK_LIMIT_REACHED = "TASK_LIMIT_REACHED"
    TOOL_RESUMABLE = "TOOL_RESUMABLE"
    STORE_UNAVAILABLE = "STORE_UNAVAILABLE"
    INTERNAL = "INTERNAL"
    REMOTE_AGENT_FAILED = "REMOTE_AGENT_FAILED"
    WAIT_DEADLINE = "WAIT_DEADLINE"
    SERVER_RESTARTED = "SERVER_RESTARTED"
    GUARDRAIL_BLOCKED = "GUARDRAIL_BLOCKED"
    BUDGET_EXHAUSTED = "BUDGET_EXHAUSTED"


class TaskFailedError(Exception):
    """A task ends FAILED with this reason and message (the message is shown to callers)."""

    reason: str = FailureReason.INTERNAL
    stop_reason: StopReason = StopReason.ERROR

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ModelUnavailableError(TaskFailedError):
    """The model could not be reached, or kept failing, within its retries."""

    reason = FailureReason.LLM_UNAVAILABLE


class ModelOutputInvalidError(TaskFailedError):
    """The model's replies could not be used, even after a corrective prompt."""

    reason = FailureReason.MODEL_OUTPUT_INVALID


class NoAnswerWithinLimitError(TaskFailedError):
    """A limit stopped the task before it had any result to answer from."""

    reason = FailureReason.TASK_LIMIT_REACHED

    def __init__(self, stop_reason: StopReason, message: str) -> None:
        super().__init__(message)
        self.stop_reason = stop_reason
        if stop_reason is StopReason.BUDGET_EXHAUSTED:  # a budget is not the task's limit
            self.reason = FailureReason.BUDGET_EXHAUSTED


class ResumeWindowClosedError(TaskFailedError):
    """A tool call failed for a reason a person can fix and nobody resumed the task
    (ResumeTask) within the resume window."""

    reason = FailureReason.TOOL_RESUMABLE

    def __init__(self, tool: str, failure: str, window_seconds: float) -> None:
        super().__init__(
            f"{tool} failed ({failure[:300]}) and the task was not resumed within its resume "
            f"window of {window_seconds:g} s"
        )


class RemoteAgentError(TaskFailedError):
    """A remote A2A agent (`agent.teams.remote`) could not be reached, refused the task, or did
    not complete it."""

    reason = FailureReason.REMOTE_AGENT_FAILED

    def __init__(self, agent_id: str, detail: str) -> None:
        super().__init__(f"remote agent {agent_id}: {detail}")


class WaitExpiredError(TaskFailedError):
    """What the task waited for (a person, a child, a remote agent, its turn) did not come
    before the wait's deadline, and its action is to fail the task
    (`AGENTD_WAIT_DEADLINE_ACTIONS`; its total wait is bounded by its wait limit)."""

    reason = FailureReason.WAIT_DEADLINE

    def __init__(self, what: str) -> None:
        super().__init__(f"{what} (the task waited past its deadline)")


class LostAtRestartError(TaskFailedError):
    """The task was parked on a server that keeps live state in its own process, and
    that server restarted: its state is gone (replicas with Redis keep parked tasks)."""

    reason = FailureReason.SERVER_RESTARTED

    def __init__(self) -> None:
        super().__init__(
            "the server restarted while this task waited; a server without Redis keeps "
            "no task across a restart (AGENTD_REDIS_URL keeps them)"
        )


class GuardrailTrippedError(TaskFailedError):
    """A guardrail blocked the task's input, the model's output, or a tool call's
    arguments or result; its message names the check and the rule, never the text."""

    reason = FailureReason.GUARDRAIL_BLOCKED
    stop_reason = StopReason.GUARDRAIL


class StoreFailedError(TaskFailedError):
    """Redis or the database stayed out of reach while the task ran."""

    reason = FailureReason.STORE_UNAVAILABLE


class TaskCrashedError(TaskFailedError):
    """Something unexpected broke; the message names the trace id to quote."""

    reason = FailureReason.INTERNAL


class RefusedError(TaskFailedError):
    """A request-level refusal met while running (a plan the model could not make valid):
    the task fails with that error's own reason."""

    def __init__(self, error: AgentdError) -> None:
        super().__init__(error.message)
        self.reason = error.reason


class OrphanNotResumableError(TaskCrashedError):
    """The process running the task stopped and nothing recorded how far it got."""

    def __init__(self) -> None:
        super().__init__(
            "the process running this task stopped and no checkpoint of it was found "
            "(replicas must share one database), so it cannot be resumed safely"
        )


def failure_of(error: Exception, trace_id: str) -> TaskFailedError:
    """What `error`, raised while a task ran, means for the task."""
    if isinstance(error, TaskFailedError):
        return error
    if isinstance(error, ModelError):
        return ModelUnavailableError(error.message)
    if isinstance(error, PlanInvalidError | ContextTooLongError):
        return RefusedError(error)
    if isinstance(error, GuardrailBlockedError):
        return GuardrailTrippedError(error.message)
    fault = as_store_error(error)
    if fault is not None:
        log.warning("task failed: a store is unavailable", error=str(error))
        return StoreFailedError(fault.message)
    log.exception("task crashed", trace_id=trace_id, exc_info=error)
    return TaskCrashedError(f"internal error; quote trace id {trace_id}")
