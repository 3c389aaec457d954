"""Grants: who may use which tool, at what level, under which conditions.

A grant gives a principal, or every holder of a role, a permission level
for one tool, every tool of a toolset (`notes.*`), a tool category or every tool of its
tenant, optionally until
an expiry, within a weekly time window (UTC), with constraints on argument
values (an allowed URL or path prefix), and optionally only with a human's
approval of each call (who decides and by when: its approval rule). A caller may use a
tool when some live grant (or the configured default level) reaches the tool's level;
nothing else does.

When several grants reach the tool's level, the most specific decides
(`Grant.specificity`: the tool pattern first, a tool's name over a toolset over a
category over `*`; then the subject, a principal over a role); the policy
(`tools.permissions.GrantPolicy`) says the rest.
"""

from __future__ import annotations

import posixpath
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from urllib.parse import unquote, urlsplit

from records.tools.approval_rules import ApprovalRule
from records.tools.model import TOOL_NAME_PATTERN, JSONValue, PermissionLevel

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_WINDOW = re.compile(
    r"^(?:(?P<days>[a-z,-]+)\s+)?"
    r"(?P<start>\d{2}):(?P<start_m>\d{2})-(?P<end>\d{2}):(?P<end_m>\d{2})$"
)
_CATEGORY = re.compile(r"^category:[a-z][a-z0-9_]{0,63}$")
TOOLSET_WILDCARD = re.compile(r"^[a-z][a-z0-9_]{0,31}\.\*$")
"""`notes.*`: every tool of toolset `notes`, those its server lists later included."""
_DAY_RANGE = re.compile(r"^(mon|tue|wed|thu|fri|sat|sun)(?:-(mon|tue|wed|thu|fri|sat|sun))?$")


TOOL_RANKS = {"name": 3, "toolset": 2, "category": 1, "every": 0}
"""How specific a tool pattern is: a tool's name, `<toolset>.*`, `category:<name>`, `*`."""
SUBJECT_RANKS = {"principal": 1, "role": 0}
"""How specific a subject is: `principal:<id>` over `role:<name>`."""


def tool_rank(pattern: str) -> int:
    """`TOOL_RANKS` of a tool pattern."""
    if pattern == "*":
        return TOOL_RANKS["every"]
    if pattern.startswith("category:"):
        return TOOL_RANKS["category"]
    return TOOL_RANKS["toolset" if pattern.endswith(".*") else "name"]


def covers(pattern: str, tool: str, category: str) -> bool:
    """Whether `pattern` (a tool's name, `<toolset>.*`, `category:<name>` or `*`) names a
    tool of this name and category."""
    if pattern.endswith(".*"):  # a toolset: its tools are named <toolset>.<tool>
        return tool.startswith(pattern[:-1])
    return pattern in ("*", tool, f"category:{category}")


@dataclass(frozen=True, slots=True)
class TimeWindow:
    """Days of the week and a daily span of minutes (UTC); the span may wrap midnight."""

    days: frozenset[int]
    """Weekdays, 0 = Monday."""
    start_minute: int
    end_minute: int

    @classmethod
    def parse(cls, text: str) -> TimeWindow:
        """`09:00-17:00` (every day), `mon-fri 09:00-17:00`, `sat,sun 00:00-24:00`."""
        match = _WINDOW.match(text.strip().lower())
        if match is None:
            raise ValueError(f"time window {text!r} is not like 'mon-fri 09:00-17:00'")
        start = int(match["start"]) * 60 + int(match["start_m"])
        end = int(match["end"]) * 60 + int(match["end_m"])
        if start >= 24 * 60 or end > 24 * 60 or int(match["start_m"]) > 59 or start == end:
            raise ValueError(f"time window {text!r} has an impossible time span")
        if match["days"] is None:
            return cls(frozenset(range(7)), start, end)
        days: set[int] = set()
        for part in match["days"].split(","):
            span = _DAY_RANGE.match(part)
            if span is None:
                raise ValueError(f"time window {text!r}: {part!r} is not a day or a day range")
            first = DAYS.index(span[1])
            last = DAYS.index(span[2] or span[1])
            days.update(d % 7 for d in range(first, first + (last - first) % 7 + 1))
        return cls(frozenset(days), start, end)

    def __str__(self) -> str:
        def hhmm(minute: int) -> str:
            return f"{minute // 60:02d}:{minute % 60:02d}"

        span = f"{hhmm(self.start_minute)}-{hhmm(self.end_minute)}"
        if self.days == frozenset(range(7)):
            return span
        ordered = sorted(self.days)
        names = ",".join(DAYS[d] for d in ordered)
        if len(ordered) > 1 and ordered == list(range(ordered[0], ordered[-1] + 1)):
            names = f"{DAYS[ordered[0]]}-{DAYS[ordered[-1]]}"
        return f"{names} {span}"

    def contains(self, moment: datetime) -> bool:
        moment = moment.astimezone(UTC)
        minute = moment.hour * 60 + moment.minute
        if self.start_minute < self.end_minute:
            return moment.weekday() in self.days and self.start_minute <= minute < self.end_minute
        # Wraps midnight: the late part belongs to the day it started on.
        if minute >= self.start_minute:
            return moment.weekday() in self.days
        return minute < self.end_minute and (moment.weekday() - 1) % 7 in self.days


def prefix_allows(prefix: str, value: str) -> bool:
    """Whether `value` lies under `prefix`, compared as a URL or as a path, never as raw text.

    A URL prefix needs the same scheme, host and port, no user info in the
    value, and a path under the prefix's path (whole segments). A path
    prefix is compared after normalisation, so `reports/../secrets` is not
    under `reports/`.
    """
    if "://" in prefix:
        try:
            want, got = urlsplit(prefix), urlsplit(value.strip())
            same_origin = (
                got.scheme.lower() == want.scheme.lower()
                and got.hostname == want.hostname
                and got.port == want.port
                and got.username is None
                and got.password is None
            )
        except ValueError:
            return False
        # Compared decoded (`%2e%2e` is `..` to a server) and normalised.
        return same_origin and _under(unquote(want.path) or "/", unquote(got.path) or "/")
    return _under(prefix, value)


def _under(prefix: str, path: str) -> bool:
    if "\x00" in path or "\\" in path:
        return False
    base = posixpath.normpath("/" + prefix.lstrip("/"))
    target = posixpath.normpath("/" + path.lstrip("/"))
    return target == base or target.startswith(base.rstrip("/") + "/")


@dataclass(frozen=True, slots=True)
class Grant:
    """One grant; see the module docstring."""

    grant_id: str
    tenant: str
    subject: str
    """`principal:<id>` or `role:<name>`."""
    tool: str
    """A tool name (`notes.search` for a toolset's), `<toolset>.*` for every tool of a
    toolset, `category:<name>`, or `*` for every tool."""
    level: PermissionLevel
    created_at: datetime
    created_by: str = ""
    expires_at: datetime | None = None
    window: TimeWindow | None = None
    arguments: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Argument name -> allowed prefixes (URL or path); each named argument must match one."""
    requires_approval: bool = False
    revoked_at: datetime | None = None
    approval: ApprovalRule | None = None
    """With `requires_approval`: who decides on its calls, by when, and what a deadline
    that passes does (None: the server's rule, `AGENTD_APPROVAL_RULE`)."""

    def __post_init__(self) -> None:
        if self.approval is not None and not self.requires_approval:
            raise ValueError("an approval rule is only for a grant that requires approval")
        kind, _, name = self.subject.partition(":")
        if kind not in ("principal", "role") or not name or len(name) > 256:
            raise ValueError(f"subject {self.subject!r} is not principal:<id> or role:<name>")
        tool = self.tool
        if not (
            tool == "*"
            or _CATEGORY.fullmatch(tool)
            or TOOL_NAME_PATTERN.fullmatch(tool)
            or TOOLSET_WILDCARD.fullmatch(tool)
        ):
            raise ValueError(
                f"tool {tool!r} is not a tool name, <toolset>.*, category:<name> or '*'"
            )

    @property
    def specificity(self) -> tuple[int, int]:
        """(tool rank, subject rank), compared in that order: the higher decides.

        The tool comes first because argument rules and windows are written for a
        tool: a broad grant to one principal (`principal:ana *`) must not lift the
        rules its roles carry for one tool (`role:ops write_file`, `path=reports/`).
        """
        return tool_rank(self.tool), SUBJECT_RANKS[self.subject.partition(":")[0]]

    def live(self, now: datetime) -> bool:
        return self.revoked_at is None and (self.expires_at is None or now < self.expires_at)

    def names(self, principal_id: str, roles: tuple[str, ...]) -> bool:
        kind, _, name = self.subject.partition(":")
        return name == principal_id if kind == "principal" else name in roles

    def covers(self, tool: str, category: str) -> bool:
        return covers(self.tool, tool, category)

    def refuses(self, arguments: Mapping[str, JSONValue] | None, now: datetime) -> str:
        """Why this grant refuses the call now (its window, its argument rules), or "";
        `arguments` None: a listing, which no argument rule refuses."""
        if self.window is not None and not self.window.contains(now):
            return f"grant {self.grant_id} is valid only {self.window} UTC"
        broken = self.refuses_arguments(arguments) if arguments is not None else ""
        return f"grant {self.grant_id}: {broken}" if broken else ""

    def refuses_arguments(self, arguments: Mapping[str, JSONValue]) -> str:
        """Why the arguments break this grant's constraints, or "" when they keep them."""
        for name, prefixes in self.arguments.items():
            value = arguments.get(name)
            if value is None:
                continue  # an absent optional argument cannot reach anywhere
            if not isinstance(value, str) or not any(prefix_allows(p, value) for p in prefixes):
                return f"argument {name!r} is not under {', '.join(prefixes)}"
        return ""


def new_grant_id() -> str:
    return "grant_" + secrets.token_hex(6)
