"""When and how soon a failed tool call is tried again.

Only an idempotent tool is retried, and only after a transient failure: the
attempt timed out, the tool raised a connection error (the `OSError` family,
`TimeoutError` included, but not the file-system errors that repeating cannot
fix) or `ToolFailed(..., transient=True)`. The waits grow exponentially, with
jitter, and never reach past the call's deadline.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from records.tools.outcomes import ToolFailed

_PERMANENT_OS_ERRORS = (
    FileNotFoundError,
    FileExistsError,
    IsADirectoryError,
    NotADirectoryError,
    PermissionError,
)

_jitter = random.SystemRandom()


def is_transient(error: BaseException) -> bool:
    """Whether a failure raised by (or around) a tool may pass if the call is repeated."""
    if isinstance(error, ToolFailed):
        return error.transient
    if isinstance(error, _PERMANENT_OS_ERRORS):
        return False
    return isinstance(error, OSError)  # ConnectionError and TimeoutError included


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How often a call of an idempotent tool is tried, and the waits in between."""

    max_attempts: int = 3
    """Attempts in all, the first included; 1 never retries."""
    base_seconds: float = 0.1
    """The wait before the second attempt (before jitter); it doubles after each one."""
    max_seconds: float = 2.0
    """The longest wait between two attempts."""

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if self.base_seconds < 0 or self.max_seconds < 0:
            raise ValueError("waits between attempts cannot be negative")

    def step(self, attempt: int) -> float:
        """The exponential step after failed attempt number `attempt` (1-based), capped."""
        return min(self.max_seconds, self.base_seconds * 2.0 ** (attempt - 1))

    def delay(self, attempt: int) -> float:
        """The wait after failed attempt number `attempt`: half to all of its step, chosen
        at random so that callers do not retry in step."""
        return self.step(attempt) * _jitter.uniform(0.5, 1.0)

    def longest(self, timeout_seconds: float) -> float:
        """The longest a call can take with every attempt timing out."""
        waits = sum(self.step(n) for n in range(1, self.max_attempts))
        return timeout_seconds * self.max_attempts + waits
