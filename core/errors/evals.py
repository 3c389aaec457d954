"""Errors of traces, replays, evaluation runs and the promotion of agent versions."""

from __future__ import annotations

from core.errors.base import AgentdError


class TraceNotFoundError(AgentdError):
    """No trace is kept of the task: it never had one, or its retention passed."""

    reason = "TRACE_NOT_FOUND"

    def __init__(self, task_id: str) -> None:
        super().__init__(
            f"no trace is kept of task {task_id!r} (none was recorded, or "
            "AGENTD_TRACE_RETENTION_SECONDS passed)",
            metadata={"task_id": task_id},
        )


class DatasetNotFoundError(AgentdError):
    """No dataset of that id in the caller's tenant."""

    reason = "DATASET_NOT_FOUND"

    def __init__(self, dataset_id: str) -> None:
        super().__init__(f"no dataset {dataset_id!r}", metadata={"dataset_id": dataset_id})


class EvalRunNotFoundError(AgentdError):
    """No evaluation run of that id in the caller's tenant."""

    reason = "EVAL_RUN_NOT_FOUND"

    def __init__(self, eval_run_id: str) -> None:
        super().__init__(
            f"no evaluation run {eval_run_id!r}", metadata={"eval_run_id": eval_run_id}
        )


class PromotionRefusedError(AgentdError):
    """A version is promoted only once an evaluation run of it passed its gate."""

    reason = "PROMOTION_REFUSED"

    def __init__(self, agent: str, why: str) -> None:
        super().__init__(f"{agent} is not promoted: {why}", metadata={"agent": agent})
