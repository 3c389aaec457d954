"""The policy the registry consults before a tool is listed or run.

Tools never check permissions themselves: the registry asks a
`PermissionPolicy` for every listing and every call.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from core.errors import PermissionDeniedError
from core.identity import CallContext, Principal
from core.watching import keep_reloading
from stores.grants.base import GrantStore
from tools.grants import Grant, covers
from tools.model import JSONValue, PermissionLevel, ToolSpec


@dataclass(frozen=True, slots=True)
class Decision:
    """Whether a principal may use a tool, and which rule said so."""

    allowed: bool
    """True when the call may go ahead."""
    rule: str
    """The rule that decided, for audit records (e.g. `grant:grant_1a2b`, `default:deny`)."""
    needs_approval: bool = False
    """True when each call needs a human's approval before it runs."""
    reason: str = ""
    """Why a call was refused or needs approval, in words for the caller."""


class PermissionPolicy(Protocol):
    """Decides whether a principal may use a tool.

    Implementations are pure and fast: they are consulted for each tool in a
    listing and for every call, from many tasks at once. `arguments` is None
    for a listing (may the caller use the tool at all?) and the call's
    arguments for a call.
    """

    def decide(
        self,
        principal: Principal,
        tool: ToolSpec,
        arguments: Mapping[str, JSONValue] | None = None,
    ) -> Decision:
        """Decide for one principal and one tool."""
        ...


@dataclass(frozen=True, slots=True)
class LevelPolicy:
    """Grants every principal the same permission level (a single-team deployment)."""

    granted: PermissionLevel
    approval_tools: frozenset[str] = frozenset()

    def decide(
        self,
        principal: Principal,
        tool: ToolSpec,
        arguments: Mapping[str, JSONValue] | None = None,
    ) -> Decision:
        rule = f"level:{self.granted.name.lower()}"
        needs = needs_approval(self.approval_tools, tool)
        return Decision(
            allowed=tool.permission <= self.granted,
            rule=rule,
            needs_approval=needs,
            reason=_approval_reason(tool, None) if needs else "",
        )


def needs_approval(approval_tools: Iterable[str], tool: ToolSpec) -> bool:
    """Whether AGENTD_APPROVAL_TOOLS names the tool: by name, by toolset (`notes.*`), by
    category (`category:web`) or all of them (`*`), as grants do."""
    return any(covers(pattern, tool.name, tool.category) for pattern in approval_tools)


def _approval_reason(tool: ToolSpec, grant: Grant | None) -> str:
    if grant is not None and grant.requires_approval:
        return f"grant {grant.grant_id} requires a human's approval of each call"
    return f"tool {tool.name!r} requires a human's approval of each call"


class GrantPolicy:
    """Decides from grants, held in memory and refreshed from a `GrantStore`.

    `default` is the level every caller holds without a grant; None denies
    every tool to a caller with no grant for it. `approval_tools` need a
    human's approval of each call, whoever calls them (`needs_approval`).
    """

    def __init__(
        self,
        grants: Iterable[Grant] = (),
        *,
        default: PermissionLevel | None = None,
        approval_tools: Sequence[str] = (),
    ) -> None:
        self._default = default
        self._approval_tools = frozenset(approval_tools)
        self._by_tenant: dict[str, list[Grant]] = {}
        self.replace(grants)

    def replace(self, grants: Iterable[Grant]) -> None:
        """Use these grants from now on."""
        by_tenant: dict[str, list[Grant]] = defaultdict(list)
        for grant in grants:
            if grant.revoked_at is None:
                by_tenant[grant.tenant].append(grant)
        self._by_tenant = dict(by_tenant)

    async def refresh(self, store: GrantStore) -> None:
        self.replace(await store.list())

    async def keep_fresh(self, store: GrantStore, interval_seconds: float) -> None:
        """Reload the grants every `interval_seconds` until cancelled; errors keep the last."""

        async def reload() -> bool:
            await self.refresh(store)
            return False  # reloaded every time: not worth a line each

        await keep_reloading(
            reload,
            interval_seconds,
            changed="grants reloaded",
            failed="could not reload grants; keeping the ones loaded",
        )

    def decide(
        self,
        principal: Principal,
        tool: ToolSpec,
        arguments: Mapping[str, JSONValue] | None = None,
        now: datetime | None = None,
    ) -> Decision:
        now = now or datetime.now(UTC)
        refusal, refusing = "", ""
        best: Grant | None = None
        for grant in self._by_tenant.get(principal.tenant, ()):
            if not (
                grant.live(now)
                and grant.names(principal.id, principal.roles)
                and grant.covers(tool.name, tool.category)
            ):
                continue
            if grant.level < tool.permission:
                if not refusal:
                    refusal = (
                        f"grant {grant.grant_id} gives {grant.level.name}, "
                        f"the tool needs {tool.permission.name}"
                    )
                    refusing = grant.grant_id
                continue
            if grant.window is not None and not grant.window.contains(now):
                refusal = f"grant {grant.grant_id} is valid only {grant.window} UTC"
                refusing = grant.grant_id
                continue
            broken = grant.refuses_arguments(arguments) if arguments is not None else ""
            if broken:
                refusal, refusing = f"grant {grant.grant_id}: {broken}", grant.grant_id
                continue
            if best is None or (best.requires_approval and not grant.requires_approval):
                best = grant
        if best is not None:
            needs = best.requires_approval or needs_approval(self._approval_tools, tool)
            return Decision(
                True,
                f"grant:{best.grant_id}",
                needs,
                _approval_reason(tool, best) if needs else "",
            )
        if self._default is not None and tool.permission <= self._default:
            needs = needs_approval(self._approval_tools, tool)
            return Decision(
                True,
                f"default:{self._default.name.lower()}",
                needs,
                _approval_reason(tool, None) if needs else "",
            )
        return Decision(
            False,
            f"grant:{refusing}" if refusing else "default:deny",
            reason=refusal
            or f"you hold no grant for {tool.name!r} (it requires {tool.permission.name})",
        )


def rechecker(
    policy: PermissionPolicy,
    spec: ToolSpec,
    arguments: Mapping[str, JSONValue],
    context: CallContext,
) -> Callable[[str, Any], None]:
    """The check a running tool makes before it uses a value in place of one of its
    arguments (a redirect's target, say): raises PermissionDeniedError if the policy
    would refuse the call with that value."""

    def check(argument: str, value: Any) -> None:
        changed = {**arguments, argument: value}
        decision = policy.decide(context.principal, spec, changed)
        if not decision.allowed:
            raise PermissionDeniedError(
                spec.name, spec.permission.name, decision.rule, decision.reason
            )

    return check
