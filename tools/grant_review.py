"""A new grant reviewed against the grants in force: is it shadowed, does it do anything?

Given when a grant is made (`agentd grants grant`, `CreateGrant`); the grant is made
all the same. "The calls a grant covers" are those of the callers it names (its
principal, or every holder of its role) to the tools its pattern names, up to its
level; who decides them is `tools.permissions.GrantPolicy`'s rule (the most
specific grant reaching the tool's level).

- **Shadowed**: more specific grants decide some of those calls; there the new grant's
  level, window and argument rules do not count (its approval requirement does). Each
  grant reported is live, more specific, names only tools the new one names (by their
  patterns), and names the same subject, or a principal that holds the new grant's role,
  or a role the new grant's principal holds (by its API keys).
- **No effect**: adding it changes no decision, for any caller it names: for every call
  it covers, a more specific grant decides, or a grant deciding without it already allows
  the call with no window, no argument rule and no earlier expiry (and where it would
  decide alone it sets no window or argument rule itself), and it asks for no approval
  that another grant naming the same callers does not ask for already. A grant naming a
  principal counts the roles that principal holds on every one of its active API keys
  (a principal with no key, known by tokens only, is counted as holding none); any
  other role, and for a role's grant any principal grant, may or may not apply and is
  weighed both ways. The review knows grants, not tools: a tool may be of any category
  and level.

A single grant never shadows another entirely (a narrower pattern names fewer tools,
a principal fewer callers than a role), so a fully shadowed grant shows as one with
no effect, or, when it asks for approval, as shadowed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from records.tools.grants import TOOL_RANKS, Grant, covers, tool_rank
from records.tools.model import PermissionLevel

MAX_WORK = 200_000
"""Probes times grants weighed: a larger review is skipped (it gives no warning)."""
MAX_NAMED = 8
"""Grants named in one warning; more are counted."""
_FRESH = "\x00"
"""Part of no tool's name or category: stands for the tools no grant names."""

Probe = tuple[str, str, PermissionLevel]
"""A tool (name, category, level) standing for every tool the grants treat alike."""


@dataclass(frozen=True, slots=True)
class GrantWarning:
    """Why a new grant may not do what was meant."""

    kind: Literal["shadowed", "no effect"]
    grants: tuple[Grant, ...]
    """The grants in force that it concerns."""
    text: str
    """In words, naming the grants."""


def review(
    new: Grant,
    existing: Iterable[Grant],
    held: Mapping[str, Sequence[tuple[str, ...]]] | None = None,
    now: datetime | None = None,
) -> list[GrantWarning]:
    """The warnings about `new` among `existing` (its tenant's grants; others are
    ignored). `held`: each principal's roles, one tuple per active API key."""
    now = now or datetime.now(UTC)
    held = held or {}
    others = [
        g for g in existing if g.tenant == new.tenant and g.grant_id != new.grant_id and g.live(now)
    ]
    kind, _, name = new.subject.partition(":")
    keyed = held.get(name, []) if kind == "principal" else []
    roles = set(keyed[0]).intersection(*keyed[1:]) if keyed else set()
    certain = [g for g in others if g.subject == new.subject or _role_of(g) in roles]
    counted = {g.grant_id for g in certain}
    maybe = [g for g in others if g.grant_id not in counted and (kind == "role" or _role_of(g))]
    void = _no_effect(new, certain, maybe)
    if void is not None:
        return [_with_roles(void, name, roles)]
    shadowing = _shadowing(new, others, held)
    return [shadowing] if shadowing is not None else []


def _role_of(grant: Grant) -> str:
    kind, _, name = grant.subject.partition(":")
    return name if kind == "role" else ""


def _free(grant: Grant, new: Grant) -> bool:
    """Allows with no window and no argument rule for as long as `new` lasts."""
    lasts = grant.expires_at is None or (
        new.expires_at is not None and grant.expires_at >= new.expires_at
    )
    return grant.window is None and not grant.arguments and lasts


def _no_effect(new: Grant, certain: list[Grant], maybe: list[Grant]) -> GrantWarning | None:
    probes = _probes(new, [*certain, *maybe])
    if probes is None:
        return None
    rank, ruled = new.specificity, bool(new.window or new.arguments)
    allowing: dict[str, Grant] = {}
    deciding: dict[str, Grant] = {}
    for name, category, level in probes:
        counting = [g for g in certain if g.covers(name, category)]
        if new.requires_approval and not any(g.requires_approval for g in counting):
            return None
        reaching = [g for g in counting if g.level >= level]
        if not reaching:
            return None  # it would be the only grant: the default level is not known here
        top = max(g.specificity for g in reaching)
        tops = [g for g in reaching if g.specificity == top]
        if top > rank:
            deciding.update((g.grant_id, g) for g in tops)
            continue
        free = [g for g in tops if _free(g, new)]
        if not free or (top < rank and ruled):
            return None
        between = (
            m for m in maybe if top < m.specificity <= rank and m.level >= level
        )  # may decide, for some callers, where it would
        if any(m.covers(name, category) and not _free(m, new) for m in between):
            return None
        allowing.setdefault(free[0].grant_id, free[0])
    if not allowing:
        named = tuple(deciding.values())
        text = f"more specific grants decide every call it covers: {_named(named)}"
    else:
        named = tuple(allowing.values())
        verb = "allows" if len(named) == 1 else "allow"
        text = f"{_named(named)} already {verb} every call it covers"
        text += " that no more specific grant decides" if deciding else ""
    return GrantWarning("no effect", named, f"{new.grant_id} has no effect: {text}")


def _probes(new: Grant, grants: Sequence[Grant]) -> list[Probe] | None:
    """One tool of each kind the patterns of `new` and `grants` tell apart, at each
    level up to the new grant's, that the new grant names; None past `MAX_WORK`."""
    patterns = {g.tool for g in grants} | {new.tool}
    if tool_rank(new.tool) == TOOL_RANKS["name"]:
        names = {new.tool}
    else:
        names = {p for p in patterns if tool_rank(p) == TOOL_RANKS["name"]}
        names |= {p[:-1] + _FRESH for p in patterns if p.endswith(".*")} | {_FRESH}
    if new.tool.startswith("category:"):
        categories = {new.tool.removeprefix("category:")}
    else:
        categories = {p.removeprefix("category:") for p in patterns if p.startswith("category:")}
        categories.add(_FRESH)
    levels = [level for level in PermissionLevel if level <= new.level]
    if len(names) * len(categories) * len(levels) * max(len(grants), 1) > MAX_WORK:
        return None
    return [
        (name, category, level)
        for name in sorted(names)
        for category in sorted(categories)
        if covers(new.tool, name, category)
        for level in levels
    ]


def _within(inner: str, outer: str) -> bool:
    """Whether pattern `inner` names only tools pattern `outer` names."""
    toolset = outer.endswith(".*") and inner.startswith(outer[:-1])
    return outer == "*" or inner == outer or toolset


def _where(new: Grant, grant: Grant, held: Mapping[str, Sequence[tuple[str, ...]]]) -> str | None:
    """For which of the new grant's callers `grant` counts too ("" all of them), as far
    as the API keys tell; None: for none known."""
    kind, _, name = new.subject.partition(":")
    their_kind, _, theirs = grant.subject.partition(":")
    if grant.subject == new.subject:
        return ""
    if kind == "role" and their_kind == "principal":
        holds = any(name in roles for roles in held.get(theirs, ()))
        return f" for principal {theirs}" if holds else None
    if kind == "principal" and their_kind == "role":
        holds = any(theirs in roles for roles in held.get(name, ()))
        return f" where {name} holds role {theirs}" if holds else None
    return None


def _shadowing(
    new: Grant, others: list[Grant], held: Mapping[str, Sequence[tuple[str, ...]]]
) -> GrantWarning | None:
    found: list[tuple[Grant, str]] = []
    for grant in others:
        if grant.specificity <= new.specificity or not _within(grant.tool, new.tool):
            continue
        where = _where(new, grant, held)
        if where is not None:
            found.append((grant, where))
    if not found:
        return None
    own = "its approval requirement does" if new.requires_approval else "it asks no approval"
    listed = [f"{_describe(grant)}{where}" for grant, where in found[:MAX_NAMED]]
    if len(found) > MAX_NAMED:
        listed.append(f"and {len(found) - MAX_NAMED} more")
    return GrantWarning(
        "shadowed",
        tuple(grant for grant, _ in found),
        f"{new.grant_id} is shadowed where more specific grants apply (they decide those "
        f"calls: its level, window and argument rules do not count there; {own}): "
        + "; ".join(listed),
    )


def _with_roles(warning: GrantWarning, principal: str, roles: set[str]) -> GrantWarning:
    """Says which roles were counted, when the warning rests on one."""
    used = sorted({_role_of(g) for g in warning.grants} & roles)
    if not used:
        return warning
    note = f" (principal {principal} holds role {', '.join(used)} on each of its API keys)"
    return GrantWarning(warning.kind, warning.grants, warning.text + note)


def _named(grants: Iterable[Grant]) -> str:
    listed = list(grants)
    shown = ", ".join(_describe(g) for g in listed[:MAX_NAMED])
    return shown + (f" and {len(listed) - MAX_NAMED} more" if len(listed) > MAX_NAMED else "")


def _describe(grant: Grant) -> str:
    """`grant_1 (role:ops write_file WRITE; path under reports/; approval)`."""
    rules = [
        f"until {grant.expires_at:%Y-%m-%d %H:%M}Z" if grant.expires_at else "",
        f"window {grant.window}" if grant.window else "",
        *(f"{k} under {'|'.join(v)}" for k, v in grant.arguments.items()),
        "approval" if grant.requires_approval else "",
    ]
    head = f"{grant.subject} {grant.tool} {grant.level.name}"
    return f"{grant.grant_id} ({'; '.join([head, *(r for r in rules if r)])})"
