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
from records.tools.approval_rules import ApprovalRule
from records.tools.grants import Grant, covers
from records.tools.model import JSONValue, PermissionLevel, ToolSpec
from stores.grants.base import GrantStore


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
    approval: ApprovalRule | None = None
    """With `needs_approval`: who decides, by when, and what its deadline does (the most
    specific asking grant's rule, else the server's); None: the role table's approvers,
    the task's wait limit and `AGENTD_WAIT_DEADLINE_ACTIONS`."""


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
    approval_rule: ApprovalRule | None = None
    """The rule of the calls that need approval (`AGENTD_APPROVAL_RULE`)."""

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
            reason=_approval_reason(tool) if needs else "",
            approval=self.approval_rule if needs else None,
        )


def needs_approval(approval_tools: Iterable[str], tool: ToolSpec) -> bool:
    """Whether AGENTD_APPROVAL_TOOLS names the tool: by name, by toolset (`notes.*`), by
    category (`category:web`) or all of them (`*`), as grants do."""
    return any(covers(pattern, tool.name, tool.category) for pattern in approval_tools)


def _approval_reason(tool: ToolSpec, asking: Sequence[Grant] = ()) -> str:
    """Why each call waits for a person: the grants that say so, else the tool's listing
    in AGENTD_APPROVAL_TOOLS."""
    if len(asking) == 1:
        return f"grant {asking[0].grant_id} requires a human's approval of each call"
    if asking:
        ids = ", ".join(grant.grant_id for grant in asking)
        return f"grants {ids} require a human's approval of each call"
    return f"tool {tool.name!r} requires a human's approval of each call"


class GrantPolicy:
    """Decides from grants, held in memory and refreshed from a `GrantStore`.

    The grants that count for a call are the live ones (neither revoked nor
    expired) of the caller's tenant that name the caller (its principal or one
    of its roles) and whose tool pattern names the tool; those whose level is
    below the tool's say nothing about it. Among the rest the most specific
    decide (`Grant.specificity`: tool name > toolset > category > `*`, then
    principal > role), and only they: the call is allowed when one of them allows
    it (inside its window, its argument rules kept; the oldest such is the rule),
    and refused when every one of them refuses, whatever broader grants say.
    No grant reaching the level: `default`, the level every caller holds without
    one (None denies).

    A call needs a human's approval when any grant that counts requires it, at
    whatever level, window, argument rules or specificity, or when
    `approval_tools` names the tool (`needs_approval`). Its approval rule is that of the
    most specific grant that requires it (the oldest of equals), or `approval_rule` (the
    server's) when that grant has none or no grant requires it.
    """

    def __init__(
        self,
        grants: Iterable[Grant] = (),
        *,
        default: PermissionLevel | None = None,
        approval_tools: Sequence[str] = (),
        approval_rule: ApprovalRule | None = None,
    ) -> None:
        self._default = default
        self._approval_tools = frozenset(approval_tools)
        self._approval_rule = approval_rule
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
        """The most specific grant reaching the tool's level decides; see the class."""
        now = now or datetime.now(UTC)
        covering = [
            grant
            for grant in self._by_tenant.get(principal.tenant, ())
            if grant.live(now)
            and grant.names(principal.id, principal.roles)
            and grant.covers(tool.name, tool.category)
        ]
        asking = [grant for grant in covering if grant.requires_approval]
        needs = bool(asking) or needs_approval(self._approval_tools, tool)
        reason = _approval_reason(tool, asking) if needs else ""
        rule = self._rule(asking) if needs else None
        reaching = [grant for grant in covering if grant.level >= tool.permission]
        if not reaching:
            return self._without_grant(tool, covering, needs, reason, rule)
        top = max(grant.specificity for grant in reaching)
        refusals: list[tuple[Grant, str]] = []
        for grant in (g for g in reaching if g.specificity == top):
            refused = grant.refuses(arguments, now)
            if not refused:
                return Decision(True, f"grant:{grant.grant_id}", needs, reason, rule)
            refusals.append((grant, refused))
        return Decision(
            False, f"grant:{refusals[0][0].grant_id}", reason="; ".join(r for _, r in refusals)
        )

    def _rule(self, asking: Sequence[Grant]) -> ApprovalRule | None:
        """The approval rule of a call the `asking` grants (if any) send for approval: the
        most specific one's (the oldest of equals), else the server's."""
        if not asking:
            return self._approval_rule
        top = min(asking, key=lambda g: (tuple(-r for r in g.specificity), g.created_at))
        return top.approval or self._approval_rule

    def _without_grant(
        self,
        tool: ToolSpec,
        covering: Sequence[Grant],
        needs: bool,
        reason: str,
        rule: ApprovalRule | None,
    ) -> Decision:
        """No grant reaches the tool's level: the default level decides."""
        if self._default is not None and tool.permission <= self._default:
            level = f"default:{self._default.name.lower()}"
            return Decision(True, level, needs, reason, rule)
        if covering:
            low = covering[0]
            return Decision(
                False,
                f"grant:{low.grant_id}",
                reason=f"grant {low.grant_id} gives {low.level.name}, "
                f"the tool needs {tool.permission.name}",
            )
        return Decision(
            False,
            "default:deny",
            reason=f"you hold no grant for {tool.name!r} (it requires {tool.permission.name})",
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
