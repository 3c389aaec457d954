"""Schedules (docs/schedules.md): who may change them, the shortest interval, how the
replicas share the firing, how many refusals pause one and how long runs are kept."""

from __future__ import annotations

from pydantic import Field

from server.settings.base import CommaList, Section

DAY_SECONDS = 86_400


class ScheduleSettings(Section):
    schedule_admin_roles: CommaList = Field(
        default_factory=lambda: ["operator", "admin"],
        description="comma-separated roles that may create, change, pause, resume, delete "
        "and trigger their tenant's schedules (any caller of the tenant may read them)",
    )
    schedule_min_interval_seconds: float = Field(
        60.0,
        gt=0,
        description=(
            "the shortest interval a schedule may have: an interval schedule's, and the "
            "smallest gap between a cron expression's due times"
        ),
    )
    schedule_max_refusals: int = Field(
        3,
        ge=1,
        description="runs refused in a row (the principal's key revoked, a grant withdrawn) "
        "that pause a schedule, with the reason",
    )
    schedule_lease_seconds: float = Field(
        15.0,
        gt=0,
        description="how long a replica holds a due schedule while it fires it; a replica "
        "that dies holding one is taken over once it ends",
    )
    schedule_tick_seconds: float = Field(
        0.5,
        gt=0,
        description="how often each replica looks for due schedules",
    )
    schedule_run_retention_seconds: int = Field(
        30 * DAY_SECONDS,
        ge=0,
        description="how long a schedule's runs are kept after their due time (the "
        "retention sweep deletes them then); 0 keeps them for ever",
    )
