"""Errors of any request: the root of the tree, invalid input, limits, stores, faults."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar


@dataclass(frozen=True, slots=True)
class FieldViolation:
    """One problem with one field of a request."""

    field: str
    """Path of the offending field, e.g. `arguments.expression`."""
    description: str
    """What is wrong with it."""


class AgentdError(Exception):
    """Base of every error agentd reports to callers."""

    reason: ClassVar[str] = "INTERNAL"

    def __init__(self, message: str, *, metadata: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.metadata: dict[str, str] = dict(metadata or {})

    @property
    def field_violations(self) -> tuple[FieldViolation, ...]:
        return ()

    @property
    def retry_after_seconds(self) -> float | None:
        return None

    @property
    def quota_violations(self) -> tuple[FieldViolation, ...]:
        """Quotas that have no room (`google.rpc.QuotaFailure`): each a subject (the
        `field`, e.g. `budget:<id>`) and what is exhausted."""
        return ()


MAX_VIOLATIONS = 20
"""Field violations reported at most; the last one says how many more there were."""
MAX_DESCRIPTION = 500


def _bounded(violations: Sequence[FieldViolation]) -> tuple[FieldViolation, ...]:
    """At most MAX_VIOLATIONS violations of bounded size, so the status always fits in
    the trailers (whatever the request held)."""
    kept = [
        FieldViolation(v.field[:MAX_DESCRIPTION], v.description[:MAX_DESCRIPTION])
        for v in violations[:MAX_VIOLATIONS]
    ]
    if len(violations) > MAX_VIOLATIONS:
        more = len(violations) - MAX_VIOLATIONS + 1
        kept[-1] = FieldViolation("request", f"... and {more} more problems like these")
    return tuple(kept)


class InvalidArgumentError(AgentdError):
    """The request is malformed; each problem is one field violation (at most
    MAX_VIOLATIONS are reported)."""

    reason = "INVALID_ARGUMENT"

    def __init__(self, violations: Sequence[FieldViolation], message: str | None = None) -> None:
        if not violations:
            raise ValueError("InvalidArgumentError needs at least one violation")
        self.violations = _bounded(violations)
        if message is None:
            message = "invalid request: " + "; ".join(
                f"{v.field}: {v.description}" for v in self.violations
            )
        super().__init__(message)

    @property
    def field_violations(self) -> tuple[FieldViolation, ...]:
        return self.violations


class RequestTooLargeError(InvalidArgumentError):
    """A field of the request exceeds its size limit."""

    reason = "REQUEST_TOO_LARGE"

    def __init__(self, field: str, size: int, limit: int) -> None:
        self.field = field
        self.size = size
        self.limit = limit
        super().__init__(
            [FieldViolation(field, f"is {size} bytes, more than the limit of {limit} bytes")]
        )


class UnimplementedError(AgentdError):
    """An RPC of the contract that this server does not serve yet."""

    reason = "NOT_IMPLEMENTED"

    def __init__(self, method: str, detail: str) -> None:
        self.method = method
        super().__init__(f"{method} is not available on this server: {detail}")


class UnauthenticatedError(AgentdError):
    """No valid credentials. The message is the same whatever was wrong with them."""

    reason = "UNAUTHENTICATED"

    def __init__(self) -> None:
        super().__init__(
            "missing or invalid credentials: send 'authorization: Bearer <API key or JWT>'"
        )


class RoleRequiredError(AgentdError):
    """The operation needs a role the caller does not hold."""

    reason = "PERMISSION_DENIED"

    def __init__(self, operation: str, roles: tuple[str, ...]) -> None:
        super().__init__(
            f"{operation} needs one of the roles: {', '.join(roles)}",
            metadata={"roles": ",".join(roles)},
        )


class ShuttingDownError(AgentdError):
    """The server is draining and takes no new work."""

    reason = "SHUTTING_DOWN"

    def __init__(self) -> None:
        super().__init__("the server is shutting down; retry on another replica")


class DeadlineExceededError(AgentdError):
    """The call's deadline passed before it could finish."""

    reason = "DEADLINE_EXCEEDED"


class ResourceExhaustedError(AgentdError):
    """A capacity or rate limit was hit; retry after `retry_after_seconds`."""

    reason = "RESOURCE_EXHAUSTED"

    def __init__(self, message: str, retry_after_seconds: float) -> None:
        self._retry_after = retry_after_seconds
        super().__init__(message)

    @property
    def retry_after_seconds(self) -> float | None:
        return self._retry_after


class RateLimitedError(ResourceExhaustedError):
    """The caller (or its tenant) made more calls than its rate allows."""

    reason = "RATE_LIMITED"


class StoreUnavailableError(AgentdError):
    """Redis or the database could not be reached, or stayed overloaded past its wait limit.

    Nothing was lost: the call did not take effect, or took effect completely
    (writes are atomic). Retry after `retry_after_seconds`.
    """

    reason = "STORE_UNAVAILABLE"

    def __init__(self, store: str, detail: str, retry_after_seconds: float = 1.0) -> None:
        self.store = store
        self.detail = detail
        self._retry_after = retry_after_seconds
        super().__init__(
            f"{store} is unavailable or overloaded ({detail}); retry shortly",
            metadata={"store": store},
        )

    @property
    def retry_after_seconds(self) -> float | None:
        return self._retry_after


class StoreUnreachableError(StoreUnavailableError):
    """A store could not be opened: its server is down or refuses agentd, or what the URL
    names does not exist (a database, the folder of a SQLite file). Raised where a store
    is first opened (start-up, `agentd migrate`, `agentd keys`), where no retry would help
    without a change of configuration. `where` is the store's URL, its password hidden."""

    def __init__(self, store: str, where: str, detail: str) -> None:
        self.store = store
        self.where = where
        self.detail = detail
        self._retry_after = 1.0
        AgentdError.__init__(
            self, f"cannot open {store} at {where}: {detail}", metadata={"store": store}
        )


class IdempotencyConflictError(AgentdError):
    """The idempotency key was already used with a different request."""

    reason = "IDEMPOTENCY_CONFLICT"

    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(
            f"idempotency key {self.key!r} was already used with a different request",
            metadata={"idempotency_key": self.key},
        )


class InternalError(AgentdError):
    """An unexpected fault; the message names the trace id to quote."""

    reason = "INTERNAL"

    def __init__(self, trace_id: str) -> None:
        self.trace_id = trace_id
        super().__init__(
            f"internal error; quote trace id {trace_id} when reporting it",
            metadata={"trace_id": trace_id},
        )
