"""Retries of idempotent tools that fail transiently: counted attempts, one audit record each."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from core.errors import PathOutsideWorkspaceError, ToolArgumentsInvalidError, ToolUnavailableError
from core.identity import CallContext
from records.tools.model import JSONValue, PermissionLevel, RiskLevel, Tool, ToolOutput, ToolSpec
from records.tools.outcomes import ToolErrorKind, ToolFailed
from server.settings import Settings
from server.wiring.builders import build_registry
from stores.audit.memory import InMemoryAuditLog
from tools.permissions import LevelPolicy
from tools.registry import ToolRegistry
from tools.retries import RetryPolicy, is_transient

FAST = RetryPolicy(max_attempts=3, base_seconds=0.001, max_seconds=0.002)

SPEC = ToolSpec(
    name="flaky",
    description="fails a number of times, then works",
    parameters={"type": "object", "properties": {"n": {"type": "integer"}}},
    category="test",
    permission=PermissionLevel.READ,
    risk=RiskLevel.LOW,
    idempotent=True,
    timeout_seconds=5.0,
)


class Flaky(Tool):
    """Raises `failure` on its first `failures` runs (sleeps past its timeout for
    "timeout"), then returns its run count."""

    def __init__(self, failures: int, failure: object, **changes: object) -> None:
        self.spec = replace(SPEC, **changes)  # type: ignore[arg-type]
        self.failures = failures
        self.failure = failure
        self.runs = 0

    async def run(self, arguments: dict[str, JSONValue], context: CallContext) -> ToolOutput:
        self.runs += 1
        if self.runs <= self.failures:
            if self.failure == "timeout":
                await asyncio.sleep(60)
            assert isinstance(self.failure, BaseException)
            raise self.failure
        return ToolOutput(data={"runs": self.runs}, text="done")


def _registry(tool: Tool, audit: InMemoryAuditLog, retry: RetryPolicy = FAST) -> ToolRegistry:
    return ToolRegistry([tool], policy=LevelPolicy(PermissionLevel.WRITE), audit=audit, retry=retry)


@pytest.mark.parametrize(
    "failure",
    [
        ToolFailed("busy, try later", transient=True),
        ConnectionResetError("connection reset"),
        OSError("network is unreachable"),
        TimeoutError("inner wait timed out"),  # asyncio.TimeoutError is TimeoutError
        "timeout",
    ],
    ids=["transient", "connection", "oserror", "inner-timeout", "timed-out"],
)
async def test_transient_failures_are_retried_until_one_works(
    failure: object, audit: InMemoryAuditLog
) -> None:
    timeout = {"timeout_seconds": 0.05} if failure == "timeout" else {}
    tool = Flaky(2, failure, **timeout)
    result = await _registry(tool, audit).call("flaky", {"n": 1}, CallContext())
    assert result.ok
    assert result.data == {"runs": 3}
    assert tool.runs == 3
    records = audit.records
    assert [r.attempt for r in records] == [1, 2, 3]
    assert records[-1].outcome == "ok"
    assert all(r.outcome != "ok" for r in records[:2])
    assert {r.call_id for r in records} == {result.call_id}


async def test_attempts_stop_at_the_configured_number(audit: InMemoryAuditLog) -> None:
    tool = Flaky(100, ToolFailed("down", transient=True))
    result = await _registry(tool, audit).call("flaky", {"n": 1}, CallContext())
    assert result.error is not None
    assert result.error.kind is ToolErrorKind.FAILED
    assert tool.runs == 3
    assert [(r.attempt, r.outcome) for r in audit.records] == [
        (1, "failed"),
        (2, "failed"),
        (3, "failed"),
    ]
    more = Flaky(100, ConnectionError("refused"))
    await _registry(more, InMemoryAuditLog(), replace(FAST, max_attempts=5)).call(
        "flaky", {"n": 1}, CallContext()
    )
    assert more.runs == 5


async def test_a_non_idempotent_tool_is_never_retried(audit: InMemoryAuditLog) -> None:
    tool = Flaky(1, ConnectionError("reset"), idempotent=False)
    result = await _registry(tool, audit).call("flaky", {"n": 1}, CallContext())
    assert result.error is not None
    assert result.error.kind is ToolErrorKind.CRASHED
    assert tool.runs == 1
    assert [(r.attempt, r.outcome) for r in audit.records] == [(1, "crashed")]


@pytest.mark.parametrize(
    "failure",
    [
        ToolFailed("no such thing"),
        RuntimeError("a bug"),
        FileNotFoundError("gone"),
        PermissionError("not yours"),
    ],
    ids=["failed", "crash", "not-found", "permission"],
)
async def test_permanent_failures_are_not_retried(
    failure: BaseException, audit: InMemoryAuditLog
) -> None:
    tool = Flaky(1, failure)
    result = await _registry(tool, audit).call("flaky", {"n": 1}, CallContext())
    assert not result.ok
    assert tool.runs == 1
    assert [r.attempt for r in audit.records] == [1]


async def test_refusals_and_invalid_arguments_are_not_retried(audit: InMemoryAuditLog) -> None:
    refusing = Flaky(1, PathOutsideWorkspaceError("arguments.path", "../x", "no"))
    with pytest.raises(PathOutsideWorkspaceError):
        await _registry(refusing, audit).call("flaky", {"n": 1}, CallContext())
    assert refusing.runs == 1
    assert [r.outcome for r in audit.records] == ["refused"]
    invalid = Flaky(1, ToolFailed("x", transient=True))
    with pytest.raises(ToolArgumentsInvalidError):
        await _registry(invalid, audit).call("flaky", {"n": "one"}, CallContext())
    assert invalid.runs == 0


async def test_no_retry_when_the_deadline_leaves_no_room(audit: InMemoryAuditLog) -> None:
    # The attempt itself used up the caller's deadline.
    slow = Flaky(5, "timeout", timeout_seconds=5.0)
    result = await _registry(slow, audit).call(
        "flaky", {"n": 1}, CallContext(deadline_seconds=0.05)
    )
    assert result.error is not None
    assert result.error.kind is ToolErrorKind.TIMEOUT
    assert slow.runs == 1
    # The wait before the next attempt (at least 5 s) would pass the deadline (1 s).
    patient = RetryPolicy(max_attempts=3, base_seconds=10.0, max_seconds=10.0)
    quick = Flaky(5, ToolFailed("busy", transient=True))
    await _registry(quick, InMemoryAuditLog(), patient).call(
        "flaky", {"n": 1}, CallContext(deadline_seconds=1.0)
    )
    assert quick.runs == 1
    # The same failures with room to spare are retried.
    roomy = Flaky(5, ToolFailed("busy", transient=True))
    await _registry(roomy, InMemoryAuditLog()).call(
        "flaky", {"n": 1}, CallContext(deadline_seconds=60.0)
    )
    assert roomy.runs == 3


def test_waits_grow_exponentially_with_jitter_and_a_cap() -> None:
    policy = RetryPolicy(max_attempts=6, base_seconds=0.1, max_seconds=0.5)
    for attempt, step in [(1, 0.1), (2, 0.2), (3, 0.4), (4, 0.5), (5, 0.5)]:
        waits = {policy.delay(attempt) for _ in range(50)}
        assert all(step / 2 <= w <= step for w in waits)
        assert len(waits) > 1  # jittered
    assert policy.longest(1.0) == pytest.approx(6 * 1.0 + 0.1 + 0.2 + 0.4 + 0.5 + 0.5)
    with pytest.raises(ValueError, match="at least 1"):
        RetryPolicy(max_attempts=0)


def test_transient_classification() -> None:
    assert is_transient(ToolFailed("x", transient=True))
    assert not is_transient(ToolFailed("x"))
    assert is_transient(ConnectionRefusedError())
    assert is_transient(TimeoutError())
    assert not is_transient(IsADirectoryError())
    assert not is_transient(ValueError())


def test_the_setting_sets_the_attempts(audit: InMemoryAuditLog, settings: Settings) -> None:
    once = build_registry(settings.model_copy(update={"tool_max_attempts": 1}), audit)
    assert once._retry.max_attempts == 1
    assert build_registry(settings, audit)._retry.max_attempts == 3


class LostThenDown(Tool):
    """Its server is lost during the first call; when the call is retried it is down."""

    def __init__(self, lost_first: bool = True) -> None:
        self.spec = SPEC
        self.runs = 0
        self.lost_first = lost_first

    async def run(self, arguments: dict[str, JSONValue], context: CallContext) -> ToolOutput:
        self.runs += 1
        if self.runs == 1 and self.lost_first:
            raise ToolFailed("lost during the call", transient=True, outcome_unknown=True)
        raise ToolUnavailableError("flaky", "the server is down")


async def test_a_retry_that_finds_the_tool_down_keeps_the_first_outcome(
    audit: InMemoryAuditLog,
) -> None:
    tool = LostThenDown()
    result = await _registry(tool, audit).call("flaky", {}, CallContext())
    assert result.error is not None
    assert result.error.kind is ToolErrorKind.OUTCOME_UNKNOWN  # not "did not run"
    assert tool.runs == 2
    assert [(r.attempt, r.outcome) for r in audit.records] == [
        (1, "outcome_unknown"),
        (2, "unavailable"),
    ]
    with pytest.raises(ToolUnavailableError):  # down from the first attempt: it did not run
        await _registry(LostThenDown(lost_first=False), audit).call("flaky", {}, CallContext())
