"""The tool registry: what tools exist, who may see them, and the one way to call them."""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from core.errors import (
    DeadlineExceededError,
    IdempotencyConflictError,
    PermissionDeniedError,
    RequestTooLargeError,
    ToolArgumentsInvalidError,
    ToolNotFoundError,
)
from core.identity import CallContext
from core.secrets import redact
from stores.audit.base import AuditSink
from stores.idempotency.base import IdempotencyStore, scoped_key
from stores.idempotency.memory import InMemoryIdempotencyStore
from stores.tool_cache.base import CachedResult, ToolCache
from stores.tool_cache.memory import InMemoryToolCache
from tools import caching
from tools.approvals import ApprovalGate
from tools.audit import digest, record_of
from tools.calls import ToolCall, run_admitted, write_audit
from tools.catalog import AsGiven, ToolCatalog
from tools.model import JSONValue, Tool, ToolSpec
from tools.outcomes import ToolCallError, ToolCallResult, ToolErrorKind
from tools.permissions import Decision, PermissionPolicy
from tools.retries import RetryPolicy

DEFAULT_MAX_ARGUMENT_BYTES = 256 * 1024


def new_call_id() -> str:
    return "call_" + secrets.token_hex(8)


@dataclass(frozen=True, slots=True)
class ListedTool:
    """A tool as a listing shows it."""

    spec: ToolSpec
    unavailable: str
    """Why it cannot be called now (its MCP server is down), or "" when it can."""


class ToolRegistry:
    """Holds the tools and runs every call through the same checks.

    A call is: look the tool up, check the argument size, ask the policy,
    validate the arguments against the schema, answer from the cache of tool
    results or run the tool under its timeout (or the caller's deadline, if
    shorter; retried when it failed transiently: `tools.calls`), and write one
    audit record per attempt, whatever happened, before returning or raising.
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
        name: str,
        arguments: Mapping[str, JSONValue],
        context: CallContext,
        idempotency_key: str,
        *,
        bypass_cache: bool = False,
    ) -> ToolCallResult:
        """`call`, at most once per key: a retry with the same key and arguments gets the
        first call's result (waiting for it if the first call is still running); other
        arguments under the same key are refused with IdempotencyConflictError."""
        scoped = scoped_key("tool", context.principal.tenant, context.principal.id, idempotency_key)
        fingerprint = digest({"tool": name, "arguments": dict(arguments)})
        try:
            stored = await self._keys.reserve(scoped, fingerprint, "", self._key_ttl)
        except IdempotencyConflictError:
            raise IdempotencyConflictError(idempotency_key) from None
        if stored is None:
            try:
                result = await self.call(name, arguments, context, bypass_cache=bypass_cache)
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
                    name, arguments, context, idempotency_key, bypass_cache=bypass_cache
                )
        if not stored:
            raise DeadlineExceededError(
                f"the first call with idempotency key {idempotency_key!r} has not finished"
            )
        return ToolCallResult.from_json(stored)

    async def refuse(
        self, name: str, arguments: Mapping[str, JSONValue], context: CallContext
    ) -> str:
        """Record a call refused before the registry's checks (a task asked for a tool it
        was not offered), under the tool's own name even when the model used its name on
        the wire (`notes_delete` for `notes.delete`); the rule is the policy's refusal, if
        it refuses, else the task's. Returns the call id."""
        call_id = new_call_id()
        tool = self.catalog.get(name) or self.catalog.on_the_wire(name)
        name = tool.spec.name if tool is not None else name
        decision = self._policy.decide(context.principal, tool.spec, arguments) if tool else None
        if decision is not None and not decision.allowed:
            rule = decision.rule
        else:
            rule = "task:tool-not-offered" if tool else "none"
        await self._audit.write(
            record_of(call_id, datetime.now(UTC), name, dict(arguments), context, rule)
        )
        return call_id

    async def call(
        self,
        name: str,
        arguments: Mapping[str, JSONValue],
        context: CallContext,
        *,
        approval: ApprovalGate | None = None,
        call_id: str = "",
        bypass_cache: bool = False,
        spec: ToolSpec | None = None,
    ) -> ToolCallResult:
        """Call one tool on behalf of `context.principal`.

        Raises ToolNotFoundError, RequestTooLargeError, PermissionDeniedError,
        ToolArgumentsInvalidError, or the AgentdError a tool raised to refuse its
        input. A tool that ran and failed, timed out or crashed comes back as
        a result with `error` set. When the policy wants a human's approval,
        `approval` is asked (and waited for); without one the call is refused.
        An approver's edited arguments go through every check again. A tool with
        `cache_seconds` may answer from the cache (`cached` set, the tool does not run)
        after every check has passed, unless `bypass_cache` (which still refreshes it).
        `spec`: the tool as the caller was given it (a task, when it started); the call
        is checked and run under it although a reload of the toolsets changed the tool
        since, by the tool's implementation now (one removed since is not found).
        """
        call_id = call_id or new_call_id()
        started = datetime.now(UTC)
        args = dict(arguments)
        tool = self.catalog.get(name)
        call = ToolCall(call_id, started, name, args, context, known=tool is not None)
        if tool is None:
            await self._audit_call(call, "not_found")
            raise ToolNotFoundError(name)
        if spec is not None and spec != tool.spec:
            tool = AsGiven(tool, spec)
        rejected = await self._admit(tool, call, approval)
        if rejected is not None:
            return rejected
        tenant = context.principal.tenant
        key = caching.cache_key(tool.spec, call.args) if tool.spec.cache_seconds else ""
        if key and not bypass_cache:
            found = await caching.lookup(self._cache, tool.spec, tenant, key)
            if found is not None:
                await self._audit_call(call, "ok", found.data, cached=True)
                return ToolCallResult(call_id, name, found.data, found.text, 0.0, cached=True)
        result = await run_admitted(
            tool, call, policy=self._policy, retry=self._retry, audit=self._audit
        )
        if result.ok and key:
            kept = CachedResult(result.data, result.text)
            await caching.keep(self._cache, tool.spec, tenant, key, kept)
        return result

    async def _audit_call(
        self,
        call: ToolCall,
        outcome: str,
        result: JSONValue = None,
        *,
        cached: bool = False,
    ) -> None:
        await write_audit(self._audit, call, outcome, result, cached=cached)

    async def _admit(
        self, tool: Tool, call: ToolCall, approval: ApprovalGate | None
    ) -> ToolCallResult | None:
        """Every check before the tool runs, and a human's approval when the policy wants
        one; an approver's edited arguments are checked again. Raises (audited) when a
        check refuses the call; the result to return when the approver rejected it, else
        None (the call may run, with `call.args`)."""
        for attempt in ("proposed", "edited"):
            await self._check(tool, call)
            if attempt == "edited" or not call.decision.needs_approval:
                break
            if approval is None:
                call.decision = Decision(
                    False,
                    call.decision.rule + ":approval",
                    reason=f"{call.decision.reason}; only a task (Execute) can wait for it",
                )
                await self._audit_call(call, "denied")
                raise PermissionDeniedError(
                    call.name, tool.spec.permission.name, call.decision.rule, call.decision.reason
                )
            human_decision = await approval(
                call.call_id, tool.spec, redact(call.args), call.decision.reason
            )
            call.human_decision = human_decision
            if not human_decision.approved:
                await self._audit_call(call, "rejected")
                message = f"rejected by {human_decision.decided_by}" + (
                    f": {human_decision.comment}" if human_decision.comment else ""
                )
                error = ToolCallError(ToolErrorKind.REJECTED, message)
                return ToolCallResult(call.call_id, call.name, None, message, 0.0, error)
            if human_decision.arguments is None:
                break
            call.args = dict(human_decision.arguments)
        return None

    async def _check(self, tool: Tool, call: ToolCall) -> None:
        """The argument size, the policy's decision and the schema, on `call.args`; the
        first refusal is audited and raised."""
        name, args = call.name, call.args
        size = len(json.dumps(args, separators=(",", ":"), default=str).encode())
        if size > self._max_argument_bytes:
            await self._audit_call(call, "invalid")
            raise RequestTooLargeError("arguments", size, self._max_argument_bytes)
        call.decision = self._policy.decide(call.context.principal, tool.spec, args)
        if not call.decision.allowed:
            await self._audit_call(call, "denied")
            raise PermissionDeniedError(
                name, tool.spec.permission.name, call.decision.rule, call.decision.reason
            )
        violations = self.catalog.validator(tool).violations(args)
        if violations:
            await self._audit_call(call, "invalid")
            raise ToolArgumentsInvalidError(name, violations)
