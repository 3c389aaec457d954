"""Errors of schedules and inbound triggers, and of a change based on a stale etag."""

from __future__ import annotations

from core.errors.base import AgentdError, FieldViolation, InvalidArgumentError, UnauthenticatedError


class ScheduleNotFoundError(AgentdError):
    """No schedule of that id in the caller's tenant."""

    reason = "SCHEDULE_NOT_FOUND"

    def __init__(self, schedule_id: str) -> None:
        super().__init__(f"no schedule {schedule_id!r}", metadata={"schedule_id": schedule_id})


class ScheduleNotActiveError(AgentdError):
    """TriggerSchedule on a schedule that is paused or has ended: resume it (or change
    its timing) first."""

    reason = "SCHEDULE_NOT_ACTIVE"

    def __init__(self, schedule_id: str, state: str) -> None:
        self.schedule_id = schedule_id
        self.state = state
        super().__init__(
            f"schedule {schedule_id!r} is {state}, not active: resume it to trigger it",
            metadata={"schedule_id": schedule_id, "state": state},
        )


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


class TriggerSignatureError(UnauthenticatedError):
    """A delivery to a trigger whose signature does not verify with its secret(s), or
    whose timestamp is outside the window (HTTP 401). Said the same whatever was wrong
    with the signature: a sender learns nothing of the secret from it."""

    def __init__(self, detail: str) -> None:
        self.detail = detail
        AgentdError.__init__(self, f"the delivery is refused: {detail}")


class PrincipalStandingError(AgentdError):
    """The principal a trigger (or schedule) runs as may no longer start its task: its
    key was revoked, or it no longer holds a role it needs (HTTP 403, the reason named)."""

    reason = "PERMISSION_DENIED"

    def __init__(self, principal: str, why: str) -> None:
        self.principal = principal
        self.why = why
        super().__init__(
            f"{principal!r} may no longer start this task: {why}",
            metadata={"principal": principal},
        )


class BodyNotTextError(InvalidArgumentError):
    """A delivery's body that is neither JSON nor UTF-8 text (HTTP 415)."""

    def __init__(self, content_type: str) -> None:
        self.content_type = content_type
        super().__init__(
            [FieldViolation("body", f"is not JSON nor UTF-8 text (content-type {content_type!r})")]
        )
