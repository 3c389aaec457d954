"""Tasks' durable traces (docs/traces.md): whether they are kept, how long, and how much
of each record and each task."""

from __future__ import annotations

from pydantic import Field

from server.settings.base import Section

DAY_SECONDS = 86_400


class TraceSettings(Section):
    traces: bool = Field(
        True,
        description="keep each task's durable trace (its model calls with the messages sent "
        "and the replies, its tool calls with their results, critics' verdicts and "
        "decisions), redacted, with the task's history on SQLite or PostgreSQL (GetTaskTrace, "
        "`agentd trace`, ReplayTask)",
    )
    trace_retention_seconds: int = Field(
        30 * DAY_SECONDS,
        ge=3600,
        description="how long a task's trace is kept after its last entry (the retention "
        "sweep deletes it then; a parked task's trace stays while it runs); at least an hour",
    )
    trace_max_record_bytes: int = Field(
        65_536,
        ge=1024,
        le=16_777_216,
        description="a message's content, a reply, a tool call's arguments or result longer "
        "than this (UTF-8 bytes) is cut in the trace, and the record marked cut",
    )
    trace_max_bytes_per_task: int = Field(
        16_777_216,
        ge=65_536,
        description="a task's trace stops growing at this size (UTF-8 bytes of its records "
        "and messages): later records are not kept, and the trace is marked cut",
    )
