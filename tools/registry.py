"""The tool registry: what tools exist, who may see them, and the one way to call them."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from core.errors import (
    AgentdError,
    DeadlineExceededError,
    GuardrailBlockedError,
    IdempotencyConflictError,
    RequestTooLargeError,
    ToolArgumentsInvalidError,
    ToolNotFoundError,
)
from core.identity import CallContext
from records.inbox.steps import DEADLINE_ACTOR
from records.tools.approvals import ApprovalDecision
from records.tools.audit import digest, record_of
from records.tools.invocation import Invocation
from records.tools.invocation import new_call_id as new_call_id
from records.tools.model import JSONValue, Tool, ToolSpec
from records.tools.outcomes import ToolCallError, ToolCallResult, ToolErrorKind
from stores.audit.base import AuditSink
from stores.idempotency.base import IdempotencyStore, scoped_key
from stores.idempotency.memory import InMemoryIdempotencyStore
from stores.tool_cache.base import CachedResult, ToolCache
from stores.tool_cache.memory import InMemoryToolCache
from tools import caching
from tools.admission import Admission, Verdict
from tools.calls import ToolCall, run_admitted, write_audit
from tools.catalog import ENGINE, AsGiven, RunByEngine, ToolCatalog
from tools.guarding import CallGuard, guarded_result
from tools.permissions import Decision, PermissionPolicy
from tools.retries import RetryPolicy

DEFAULT_MAX_ARGUMENT_BYTES = 256 * 1024


@dataclass(frozen=True, slots=True)
class ListedTool:
    """A tool as a listing shows it."""

    spec: ToolSpec
    unavailable: str
    """Why it cannot be called now (its MCP server is down), or "" when it can."""


class ToolRegistry:
    """Holds the tools and runs every call through the same checks.

    A call is an `Invocation` (its arguments parsed and redacted once) in two steps.
    `admit`: look the tool up, check the argument size, ask the policy, validate the
    arguments against the schema; it returns an `Admission` (allowed, needs approval,
    denied). `run`: answer from the cache of tool results or run the tool under its
    timeout (or the caller's deadline, if shorter; retried when it failed transiently:
    `tools.calls`). One audit record is written per attempt, whatever happened, before
    returning or raising. A person's approval is waited for by the caller (a task),
    between the two steps, and handed to `decided`.
    """

    def __init__(
        self,
        tools: Iterable[Tool],
        *,
        policy: PermissionPolicy,
        audit: AuditSink,
        max_argument_bytes: int = DEFAULT_MAX_ARGUMENT_BYTES,
        keys: IdempotencyStore | None = None,
        key_ttl_seconds: float = 3600.0,
        retry: RetryPolicy | None = None,
        cache: ToolCache | None = None,
    ) -> None:
        self._retry = retry or RetryPolicy()
        self._cache: ToolCache = cache or InMemoryToolCache()
        self._keys = keys or InMemoryIdempotencyStore()
        self._key_ttl = key_ttl_seconds
        self._policy = policy
        self._audit = audit
        self._max_argument_bytes = max_argument_bytes
        self.catalog = ToolCatalog(tools)
        """The tools: the built-ins, and each toolset's (replaced as toolsets change)."""

    @property
    def policy(self) -> PermissionPolicy:
        return self._policy

    def use_idempotency_store(self, keys: IdempotencyStore, ttl_seconds: float) -> None:
        self._keys = keys
        self._key_ttl = ttl_seconds

    def use_tool_cache(self, cache: ToolCache) -> None:
        self._cache = cache

    def register(self, tool: Tool) -> None:
        self.catalog.register(tool)

    def listing(
        self, context: CallContext, category: str = "", toolset: str = ""
    ) -> list[ListedTool]:
        """The tools the caller may use, ordered by name, each with why it cannot be called
        now (its MCP server is down) or "": both as of the same moment."""
        return [
            ListedTool(tool.spec, tool.unavailable())
            for tool in self.catalog.ordered()
            if (not category or tool.spec.category == category)
            and (not toolset or tool.spec.toolset == toolset)
            and self._policy.decide(context.principal, tool.spec).allowed
        ]

    def visible_to(
        self, context: CallContext, category: str = "", toolset: str = ""
    ) -> list[ToolSpec]:
        """The specs of the tools the caller may use, ordered by name."""
        return [listed.spec for listed in self.listing(context, category, toolset)]

    def spec(self, name: str) -> ToolSpec:
        tool = self.catalog.get(name)
        if tool is None:
            raise ToolNotFoundError(name)
        return tool.spec

    async def call_once(
        self,
        invocation: Invocation,
        context: CallContext,
        idempotency_key: str,
        *,
        bypass_cache: bool = False,
        guard: CallGuard | None = None,
    ) -> ToolCallResult:
        """`invoke`, at most once per key: a retry with the same key and arguments gets the
        first call's result (waiting for it if the first call is still running); other
        arguments under the same key are refused with IdempotencyConflictError."""
        name = invocation.name
        scoped = scoped_key("tool", context.principal.tenant, context.principal.id, idempotency_key)
        fingerprint = digest({"tool": name, "arguments": invocation.arguments})
        try:
            stored = await self._keys.reserve(scoped, fingerprint, "", self._key_ttl)
        except IdempotencyConflictError:
            raise IdempotencyConflictError(idempotency_key) from None
        if stored is None:
            try:
                result = await self.invoke(
                    invocation, context, bypass_cache=bypass_cache, guard=guard
                )
            except BaseException:
                await self._keys.release(scoped)
                raise
            await self._keys.store(scoped, fingerprint, result.to_json(), self._key_ttl)
            return result
        deadline = time.monotonic() + self._retry.longest(self.spec(name).timeout_seconds) + 5.0
        while not stored and time.monotonic() < deadline:  # the first call is still running
            await asyncio.sleep(0.05)
            stored = await self._keys.reserve(scoped, fingerprint, "", self._key_ttl)
            if stored is None:  # the first call was refused and released the key: run it here
                return await self.call_once(
                    invocation, context, idempotency_key, bypass_cache=bypass_cache, guard=guard
                )
        if not stored:
            raise DeadlineExceededError(
                f"the first call with idempotency key {idempotency_key!r} has not finished"
            )
        return ToolCallResult.from_json(stored)

    async def refuse(self, invocation: Invocation, context: CallContext) -> str:
        """Record a call refused before the registry's checks (a task asked for a tool it
        was not offered), under the tool's own name even when the model used its name on
        the wire (`notes_delete` for `notes.delete`); the rule is the policy's refusal, if
        it refuses, else the task's. Returns the call id."""
        name, arguments = invocation.name, invocation.arguments
        tool = self.catalog.get(name) or self.catalog.on_the_wire(name)
        name = tool.spec.name if tool is not None else name
        decision = self._policy.decide(context.principal, tool.spec, arguments) if tool else None
        if decision is not None and not decision.allowed:
            rule = decision.rule
        else:
            rule = "task:tool-not-offered" if tool else "none"
        await self._audit.write(
            record_of(
                invocation.call_id, datetime.now(UTC), name, invocation.redacted, context, rule
            )
        )
        return invocation.call_id

    async def call(
        self,
        name: str,
        arguments: Mapping[str, JSONValue],
        context: CallContext,
        *,
        call_id: str = "",
        bypass_cache: bool = False,
        guard: CallGuard | None = None,
    ) -> ToolCallResult:
        """`invoke` of `name` with `arguments` (parsed already)."""
        invocation = Invocation.of(name, arguments, call_id)
        return await self.invoke(invocation, context, bypass_cache=bypass_cache, guard=guard)

    async def invoke(
        self,
        invocation: Invocation,
        context: CallContext,
        *,
        bypass_cache: bool = False,
        guard: CallGuard | None = None,
    ) -> ToolCallResult:
        """Call one tool on behalf of `context.principal`: `admit`, then `run` (a call that
        needs a person's approval is refused: only a task can wait for one).

        Raises ToolNotFoundError, RequestTooLargeError, PermissionDeniedError,
        ToolArgumentsInvalidError, or the AgentdError a tool raised to refuse its
        input. A tool that ran and failed, timed out or crashed comes back as
        a result with `error` set. A tool with `cache_seconds` may answer from the
        cache (`cached` set, the tool does not run) after every check has passed,
        unless `bypass_cache` (which still refreshes it). Under a `guard`, its arguments
        and its result are checked (`tools.guarding`): GuardrailBlockedError.
        """
        admission = await self.admit(invocation, context, guard=guard)
        return outside_a_task(await self.run(admission, bypass_cache=bypass_cache))

    async def admit(
        self,
        invocation: Invocation,
        context: CallContext,
        *,
        spec: ToolSpec | None = None,
        guard: CallGuard | None = None,
    ) -> Admission:
        """Every check before the tool runs: the tool exists, the arguments' size, the
        policy's decision and (unless it denies) the schema. Raises (audited)
        ToolNotFoundError, RequestTooLargeError or ToolArgumentsInvalidError; else the
        admission (allowed, needs approval or denied, with the policy's rule).
        `spec`: the tool as the caller was given it (a task, when it started); the call
        is checked and run under it although a reload of the toolsets changed the tool
        since, by the tool's implementation now (one removed since is not found). A tool
        the engine runs itself (`tools.catalog.ENGINE`) is admitted under its `spec`; its
        call is then `handed_on`, never `run`."""
        started = datetime.now(UTC)
        tool = self.catalog.get(invocation.name)
        if tool is None and spec is not None and spec.source == ENGINE:
            tool = RunByEngine(spec)
        if tool is None:
            call = ToolCall(invocation, started, context, known=False)
            await write_audit(self._audit, call, "not_found")
            raise ToolNotFoundError(invocation.name)
        if spec is not None and spec != tool.spec:
            tool = AsGiven(tool, spec)
        unchecked = Decision(allowed=False, rule="none")
        admission = Admission(invocation, tool, context, started, unchecked, guard=guard)
        return await self._checked(admission)

    async def decided(
        self, admission: Admission, human: ApprovalDecision, edited: Invocation | None = None
    ) -> Admission | ToolCallResult:
        """A person's decision on a call that needed it: the result of a rejected call
        (audited), else the call admitted to run, with the arguments they replaced the
        proposed ones with (`edited`, checked again) if any."""
        if not human.approved:
            await write_audit(self._audit, replace(admission, human=human).call(), "rejected")
            message = f"rejected by {human.decided_by}" + (
                f": {human.comment}" if human.comment else ""
            )
            error = ToolCallError(ToolErrorKind.REJECTED, message)
            return ToolCallResult(
                admission.invocation.call_id, admission.invocation.name, None, message, 0.0, error
            )
        approved = replace(admission, human=human)
        if human.arguments is None:
            return approved
        edited = edited or admission.invocation.edited(human.arguments)
        return await self._checked(replace(approved, invocation=edited))

    async def timed_out(self, admission: Admission, what: str) -> ToolCallResult:
        """The result of a call that needed a person's decision and got none before its
        wait's deadline: audited as a timeout (rule `<rule>:deadline`, approval "timed out:
        denied" by the deadline), never as a person's denial."""
        rule = f"{admission.decision.rule}:deadline"
        expired = Decision(False, rule, reason=what)
        nobody = ApprovalDecision(False, DEADLINE_ACTOR, timed_out=True)
        await write_audit(self._audit, replace(admission, human=nobody).call(expired), "timeout")
        error = ToolCallError(ToolErrorKind.TIMEOUT, f"not called: {what}")
        invocation = admission.invocation
        return ToolCallResult(invocation.call_id, invocation.name, None, error.message, 0.0, error)

    async def handed_on(self, admission: Admission) -> None:
        """An admitted call of a tool the engine runs itself (`ENGINE`: `ask_user`, a
        delegation, a panel), handed back to the engine: its audit record written (outcome
        `dispatched`, under the rule that admitted it) before the engine runs it. A denied
        one, or one still waiting for approval, is audited and refused, as `run` does."""
        await self._refuse_unless_allowed(admission)
        await write_audit(self._audit, admission.call(), "dispatched")

    async def run_by_engine(
        self, admission: Admission, work: Callable[[], Awaitable[JSONValue]]
    ) -> JSONValue:
        """An admitted call that the engine carries out itself (`work`: a memory
        extraction's operation), refused (audited) unless allowed; its audit record
        written with its outcome (ok, or failed when `work` raised an AgentdError)."""
        await self._refuse_unless_allowed(admission)
        started = time.perf_counter()
        try:
            result = await work()
        except AgentdError as error:
            took = time.perf_counter() - started
            failed = {"error": error.message}
            await write_audit(self._audit, admission.call(), "failed", failed, took)
            raise
        took = time.perf_counter() - started
        await write_audit(self._audit, admission.call(), "ok", result, took)
        return result

    async def _refuse_unless_allowed(self, admission: Admission) -> None:
        verdict = admission.verdict
        if verdict is not Verdict.ALLOWED:
            denial = admission.decision
            if verdict is Verdict.NEEDS_APPROVAL:
                denial = admission.unapproved()
            await write_audit(self._audit, admission.call(denial), "denied")
            raise admission.refusal(denial)

    async def run(self, admission: Admission, *, bypass_cache: bool = False) -> ToolCallResult:
        """Run an admitted call (from the cache of tool results, when the tool has one);
        a denied one, or one still waiting for approval, is audited and refused."""
        await self._refuse_unless_allowed(admission)
        tool, call = admission.tool, admission.call()
        tenant = admission.context.principal.tenant
        key = caching.cache_key(tool.spec, call.args) if tool.spec.cache_seconds else ""
        if key and not bypass_cache:
            found = await caching.lookup(self._cache, tool.spec, tenant, key)
            if found is not None:
                await write_audit(self._audit, call, "ok", found.data, cached=True)
                cached = ToolCallResult(
                    call.call_id, call.name, found.data, found.text, 0.0, cached=True
                )
                return await guarded_result(admission.guard, cached)
        result = await run_admitted(
            tool, call, policy=self._policy, retry=self._retry, audit=self._audit
        )
        if result.ok and key and not result.files:  # files are kept once, never cached
            kept = CachedResult(result.data, result.text)
            await caching.keep(self._cache, tool.spec, tenant, key, kept)
        return await guarded_result(admission.guard, result)

    async def _checked(self, admission: Admission) -> Admission:
        """`admission` with the policy's decision on its arguments, once their size and
        (unless the policy denies the call) their schema passed; a refusal is audited
        (under the decision that stood before) and raised."""
        invocation, tool = admission.invocation, admission.tool
        size = invocation.size
        if size > self._max_argument_bytes:
            await write_audit(self._audit, admission.call(), "invalid")
            raise RequestTooLargeError("arguments", size, self._max_argument_bytes)
        principal = admission.context.principal
        decided = replace(
            admission, decision=self._policy.decide(principal, tool.spec, invocation.arguments)
        )
        if not decided.decision.allowed:
            return decided
        violations = self.catalog.validator(tool).violations(invocation.arguments)
        if violations:
            await write_audit(self._audit, decided.call(), "invalid")
            raise ToolArgumentsInvalidError(invocation.name, violations)
        guard = admission.guard
        if guard is None or not guard.watches_calls():
            return decided
        try:
            kept = await guard.tool_arguments(
                invocation.name, invocation.call_id, invocation.arguments
            )
        except GuardrailBlockedError:
            await write_audit(self._audit, decided.call(), "blocked")
            raise
        if kept is invocation.arguments:
            return decided
        return replace(decided, invocation=invocation.edited(kept))


def outside_a_task(result: ToolCallResult) -> ToolCallResult:
    """A result of a call made outside a task (CallTool, agentd's own MCP tools): the
    files the tool returned are not kept (there is no task tree to keep them in), and
    its text says so."""
    if not result.files:
        return result
    note = f"{len(result.files)} file(s) not kept: files are kept as artifacts inside a task"
    return replace(result, text=f"{result.text}\n{note}" if result.text else note, files=())
