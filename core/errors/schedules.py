"""Errors of schedules and inbound triggers, and of a change based on a stale etag."""

from __future__ import annotations

from core.errors.base import AgentdError


class ScheduleNotFoundError(AgentdError):
    """No schedule of that id in the caller's tenant."""

    reason = "SCHEDULE_NOT_FOUND"

    def __init__(self, schedule_id: str) -> None:
        super().__init__(f"no schedule {schedule_id!r}", metadata={"schedule_id": schedule_id})


class TriggerNotFoundError(AgentdError):
    """No trigger of that id in the caller's tenant."""

    reason = "TRIGGER_NOT_FOUND"

    def __init__(self, trigger_id: str) -> None:
        super().__init__(f"no trigger {trigger_id!r}", metadata={"trigger_id": trigger_id})


class EtagMismatchError(AgentdError):
    """A change named an etag that is no longer the resource's: it changed since it was
    read. Read it again and retry."""

    reason = "ETAG_MISMATCH"

    def __init__(self, resource: str, current: str) -> None:
        super().__init__(
            f"{resource} changed since it was read (its etag is now {current!r}); read it "
            "again and retry",
            metadata={"resource": resource, "etag": current},
        )


class StandingLostError(AgentdError):
    """The principal a schedule (or trigger) runs as no longer stands: it holds no active
    API key of its tenant any more. The run is refused."""

    reason = "PERMISSION_DENIED"

    def __init__(self, principal: str, tenant: str) -> None:
        super().__init__(
            f"principal {principal!r} of tenant {tenant!r} holds no active API key any more",
            metadata={"principal": principal, "tenant": tenant},
        )
