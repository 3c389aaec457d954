"""One call through the registry once it is admitted: its audit records and its attempts.

`ToolCall` is the call as its audit record shows it (its `Invocation`, the decisions).
`run_admitted` runs the tool under its timeout (or what is left of the caller's deadline,
if shorter); an idempotent tool that failed transiently is tried again (`tools.retries`),
each attempt audited, never waiting past the deadline.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from dataclasses import dataclass, field, replace
from datetime import datetime

import structlog

from core import tracing
from core.errors import AgentdError, ToolUnavailableError
from core.identity import CallContext
from core.metrics import TOOL_CALLS, TOOL_LATENCY, labelled
from core.text import within_depth
from records.tools.approvals import ApprovalDecision
from records.tools.audit import record_of
from records.tools.invocation import Invocation
from records.tools.model import JSONValue, Tool, ToolFile
from records.tools.outcomes import ToolCallError, ToolCallResult, ToolErrorKind, ToolFailed
from stores.audit.base import AuditSink
from tools import progress
from tools.permissions import Decision, PermissionPolicy, rechecker
from tools.progress import Progress
from tools.retries import RetryPolicy, is_transient

log = structlog.get_logger(__name__)


@dataclass
class ToolCall:
    """One call through the registry, as its audit record will show it: the invocation
    (an approver's edit replaced its arguments), the policy's decision and the approver's."""

    invocation: Invocation
    started: datetime
    context: CallContext
    known: bool
    """False for a tool the registry does not have."""
    decision: Decision = field(default_factory=lambda: Decision(allowed=False, rule="none"))
    human_decision: ApprovalDecision | None = None
    attempt: int = 1
    """Which attempt at running the tool the call is on (retries count up from 1)."""

    @property
    def call_id(self) -> str:
        return self.invocation.call_id

    @property
    def name(self) -> str:
        return self.invocation.name

    @property
    def args(self) -> dict[str, JSONValue]:
        return self.invocation.arguments


async def write_audit(
    audit: AuditSink,
    call: ToolCall,
    outcome: str,
    result: JSONValue = None,
    duration: float = 0.0,
    *,
    cached: bool = False,
) -> None:
    """Count the call and write its audit record (of this attempt), as the call stands
    now."""
    labelled(TOOL_CALLS, call.name if call.known else "(unknown)", outcome).inc()
    if duration:
        labelled(TOOL_LATENCY, call.name).observe(duration)
    await audit.write(
        record_of(
            call.call_id,
            call.started,
            call.name,
            call.invocation.redacted,
            call.context,
            call.decision.rule,
            allowed=call.decision.allowed,
            outcome=outcome,
            result=result,
            duration=duration,
            human_decision=call.human_decision,
            attempt=call.attempt,
            cached=cached,
        )
    )


def audited(data: JSONValue, files: tuple[ToolFile, ...]) -> JSONValue:
    """What an audit record's digest covers: the result and, when the tool returned
    files, each one's name, type, size and SHA-256 digest (never their bytes)."""
    if not files:
        return data
    return {"result": data, "files": [file_facts(f) for f in files]}


def file_facts(file: ToolFile) -> dict[str, JSONValue]:
    """A file as records name it: its name, type, size and SHA-256 digest."""
    digest = hashlib.sha256(file.content).hexdigest()
    return {
        "name": file.name,
        "media_type": file.media_type,
        "size": len(file.content),
        "sha256": digest,
    }


async def run_admitted(
    tool: Tool,
    call: ToolCall,
    *,
    policy: PermissionPolicy,
    retry: RetryPolicy,
    audit: AuditSink,
) -> ToolCallResult:
    """Run an admitted call under the tool's timeout (or what is left of the caller's
    deadline, if shorter). An idempotent tool that failed transiently is tried again
    (`tools.retries`), each attempt audited, never waiting past the deadline; a retry
    that finds the tool unavailable leaves the call with the earlier attempt's result."""
    attempts = retry.max_attempts if tool.spec.idempotent else 1
    given = call.context.deadline_seconds
    deadline = None if given is None else time.monotonic() + given
    context = replace(
        call.context, check_argument=rechecker(policy, tool.spec, call.args, call.context)
    )
    result: ToolCallResult | None = None
    while True:
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        try:
            result, transient = await _attempt(tool, call, context, left, audit)
        except ToolUnavailableError:
            if result is None:
                raise
            # A retry that finds the server down did not run; the attempt before it did
            # (and may have taken effect): its outcome is the call's.
            return result
        if result.ok or not transient or call.attempt >= attempts:
            return result
        wait = retry.delay(call.attempt)
        if deadline is not None and deadline - time.monotonic() <= wait:
            return result  # no room for another attempt
        await asyncio.sleep(wait)
        call.attempt += 1


class _Liveness:
    """What a progress report does to a call's clock: for a tool whose progress keeps it
    alive, the timeout starts over, never past the caller's deadline (`left`)."""

    def __init__(self, tool: Tool, timer: asyncio.Timeout, left: float | None) -> None:
        self._loop = asyncio.get_running_loop()
        self._idle = tool.spec.timeout_seconds
        self._keeps_alive = tool.spec.progress_keeps_alive
        self._hard_end = None if left is None else self._loop.time() + left
        self._timer = timer
        self.capped = left is not None and left < self._idle
        """Whether the caller's deadline, not the tool's timeout, ends the call."""

    def heard(self, _: Progress) -> None:
        if self._keeps_alive and not self._timer.expired():
            end = self._loop.time() + self._idle
            self.capped = self._hard_end is not None and self._hard_end < end
            self._timer.reschedule(min(end, self._hard_end) if self._hard_end else end)


async def _attempt(
    tool: Tool, call: ToolCall, context: CallContext, left: float | None, audit: AuditSink
) -> tuple[ToolCallResult, bool]:
    """One attempt, audited: its result (a failure, timeout or crash is a result with
    `error` set) and whether its failure was transient. An AgentdError the tool raised
    to refuse its input is audited as "refused" and raised."""
    name, args = call.name, call.args
    timeout = tool.spec.timeout_seconds if left is None else min(tool.spec.timeout_seconds, left)
    clock = time.perf_counter()
    try:
        attributes = {"agentd.tool": name}
        if context.parent_task_id:  # a child task's call: its place in its tree
            attributes["agentd.parent_task_id"] = context.parent_task_id
            attributes["agentd.root_task_id"] = context.root_task_id
        with tracing.span(f"tool {name}", context.trace_id, attributes) as span:
            span.set_attribute("agentd.call_id", call.call_id)
            span.set_attribute("agentd.attempt", call.attempt)
            async with asyncio.timeout(timeout) as timer:
                liveness = _Liveness(tool, timer, left)
                with progress.listening(liveness.heard):
                    output = await tool.run(args, context)
    except ToolFailed as failure:
        kind = ToolErrorKind.OUTCOME_UNKNOWN if failure.outcome_unknown else ToolErrorKind.FAILED
        kind = ToolErrorKind.RESUMABLE if failure.resumable else kind
        error = ToolCallError(kind, failure.message)
        transient = failure.transient and not failure.resumable
    except TimeoutError:
        what = (
            f"went {tool.spec.timeout_seconds:g} s without reporting progress"
            if tool.spec.progress_keeps_alive and not liveness.capped
            else f"did not finish within {timeout:g} s"
        )
        error = ToolCallError(ToolErrorKind.TIMEOUT, f"tool {name!r} {what}")
        transient = True
    except AgentdError as refusal:
        outcome = "unavailable" if isinstance(refusal, ToolUnavailableError) else "refused"
        await write_audit(audit, call, outcome, duration=time.perf_counter() - clock)
        raise
    except Exception as crash:
        log.exception("tool crashed", tool=name, call_id=call.call_id, trace_id=context.trace_id)
        error = ToolCallError(
            ToolErrorKind.CRASHED,
            f"tool {name!r} failed unexpectedly; see the server log for trace id "
            f"{context.trace_id}",
        )
        transient = is_transient(crash)
    else:
        duration = time.perf_counter() - clock
        data = within_depth(output.data)  # every tool's result, held to one depth cap
        await write_audit(audit, call, "ok", audited(data, output.files), duration)
        result = ToolCallResult(call.call_id, name, data, output.text, duration)
        return replace(result, files=output.files, images=output.images), False
    duration = time.perf_counter() - clock
    await write_audit(audit, call, error.kind.value, duration=duration)
    return ToolCallResult(call.call_id, name, None, error.message, duration, error), transient
