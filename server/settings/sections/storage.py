"""Where state lives: the database, Redis, their pools, retention and leases."""

from __future__ import annotations

from pydantic import Field, model_validator

from server.settings.base import Section


class StorageSettings(Section):
    database_url: str = Field(
        "sqlite+aiosqlite:///var/agentd.db",
        description="SQLAlchemy URL of the database (task history, audit); PostgreSQL: "
        "postgresql+asyncpg://user@host/db",
    )
    redis_url: str | None = Field(
        None,
        description="Redis for task state and event logs (shared by replicas); in-process if unset",
    )
    redis_prefix: str = Field("agentd:", description="prefix of every Redis key agentd writes")
    redis_max_connections: int = Field(
        32,
        ge=2,
        description="connections of the Redis pool serving calls and tasks (the background "
        "loops and pub/sub keep 3 more of their own)",
    )
    redis_pool_timeout_seconds: float = Field(
        5.0,
        gt=0,
        description="how long a call waits for a free Redis connection before it is answered "
        "UNAVAILABLE",
    )
    redis_cancelled_reply_seconds: float = Field(
        1.0,
        gt=0,
        description="how long a call cancelled while its Redis reply is on its way waits for "
        "that reply, to give its connection back in step, before the connection is dropped",
    )
    database_pool_size: int = Field(
        10, ge=1, description="PostgreSQL connections kept open (reads; writes use one at a time)"
    )
    database_max_overflow: int = Field(
        10, ge=0, description="PostgreSQL connections opened beyond the pool size under load"
    )
    database_pool_timeout_seconds: float = Field(
        30.0,
        gt=0,
        description="how long a call waits for a free PostgreSQL connection before it is "
        "answered UNAVAILABLE",
    )
    retention_seconds: int = Field(
        3600,
        gt=0,
        description="how long a finished task's live state and its events are kept (its "
        "record and artifacts: AGENTD_HISTORY_RETENTION_SECONDS, "
        "AGENTD_ARTIFACT_RETENTION_SECONDS)",
    )
    history_retention_seconds: int = Field(
        0,
        ge=0,
        description="how long a finished task's record (its task_history row and labels, "
        "what GetTask and ListTasks answer from once the live state is gone) is kept after "
        "the task and the root of its task tree finished, and each entry of the inbox's "
        "history (ListActionHistory) after its step, never while its task tree's root task "
        "is unfinished; 0: for ever. If set, at least AGENTD_RETENTION_SECONDS",
    )
    artifact_retention_seconds: int = Field(
        0,
        ge=0,
        description="how long an artifact version is kept after it was written (never while "
        "its task tree's root task is unfinished); 0: for ever",
    )
    retention_sweep_interval_seconds: float = Field(
        300.0,
        ge=1.0,
        le=86_400.0,
        description="how often each replica deletes the task records, the inbox's history, "
        "artifact versions and usage ledger rows past their retention (when any is set)",
    )
    retention_sweep_batch: int = Field(
        500,
        ge=1,
        le=5000,
        description="rows one retention delete takes at most (one short transaction); a "
        "sweep repeats it until a batch comes back short",
    )
    lease_seconds: float = Field(
        10.0,
        gt=0,
        description="with Redis: how long a task stays with a process that stopped renewing its "
        "lease before another process takes it over",
    )
    takeover_interval_seconds: float = Field(
        1.0, gt=0, description="with Redis: how often a process looks for tasks to take over"
    )
    replica_id: str | None = Field(
        None, description="this process's name in leases (default: host name, pid, random)"
    )

    @model_validator(mode="after")
    def _records_outlive_live_state(self) -> StorageSettings:
        kept = self.history_retention_seconds
        if kept and kept < self.retention_seconds:
            raise ValueError(
                "AGENTD_HISTORY_RETENTION_SECONDS must be 0 (for ever) or at least "
                f"AGENTD_RETENTION_SECONDS ({self.retention_seconds}): a task's record is "
                "what answers for it once its live state is gone"
            )
        return self
