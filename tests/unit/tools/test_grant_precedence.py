"""Which grant decides when several apply: the most specific, tool pattern first, then
subject; its refusal is not outranked by broader grants, and every approval requirement
holds."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import pytest

from core.identity import Principal
from records.tools.grants import Grant, TimeWindow
from records.tools.model import JSONValue, PermissionLevel, RiskLevel, ToolSpec
from tools.permissions import GrantPolicy

NOW = datetime(2026, 11, 23, 10, 30, tzinfo=UTC)  # a Monday
DEVELOPER = Principal("developer", "default", ("admin",))
ALICE = Principal("alice", "default", ("analyst", "auditor"))


def spec(name: str, category: str, level: str) -> ToolSpec:
    return ToolSpec(
        name=name,
        description="d",
        parameters={"type": "object"},
        category=category,
        permission=PermissionLevel[level],
        risk=RiskLevel.LOW,
        idempotent=False,
        timeout_seconds=1.0,
    )


WRITE_FILE = spec("write_file", "files", "WRITE")
NOTES_ADD = spec("notes.add", "notes", "WRITE")


def g(grant_id: str, subject: str, tool: str, level: str = "ADMIN", **rules: object) -> Grant:
    """A grant of tenant `default`, made a day ago; `rules`: expiry, window, arguments..."""
    return Grant(
        grant_id=grant_id,
        tenant="default",
        subject=subject,
        tool=tool,
        level=PermissionLevel[level],
        created_at=NOW - timedelta(days=1),
        **rules,  # type: ignore[arg-type]
    )


REPORTS = {"path": ("reports/",)}
DEV_KEY = g("g_devkey", "role:admin", "*")  # what `make run` makes for its development key


@dataclass(frozen=True)
class Case:
    grants: list[Grant]
    arguments: dict[str, JSONValue] | None
    """None: a listing."""
    expected: tuple[bool, str, bool]
    """(allowed, rule, needs approval)."""
    who: Principal = ALICE
    tool: ToolSpec = WRITE_FILE
    default: PermissionLevel | None = None
    approval_tools: list[str] = field(default_factory=list)


NEW = g(
    "g_new", "principal:developer", "write_file", "WRITE", arguments=REPORTS, requires_approval=True
)
CASES = {
    # The development key's grant does not outrank the user's narrower one.
    "dev key, inside the prefix": Case(
        [DEV_KEY, NEW], {"path": "reports/q3.csv"}, (True, "grant:g_new", True), DEVELOPER
    ),
    "dev key, outside the prefix": Case(
        [DEV_KEY, NEW], {"path": "secrets.txt"}, (False, "grant:g_new", False), DEVELOPER
    ),
    "dev key, the order they were made in does not matter": Case(
        [NEW, DEV_KEY], {"path": "secrets.txt"}, (False, "grant:g_new", False), DEVELOPER
    ),
    "dev key, a listing": Case([DEV_KEY, NEW], None, (True, "grant:g_new", True), DEVELOPER),
    "dev key alone": Case([DEV_KEY], {"path": "x"}, (True, "grant:g_devkey", False), DEVELOPER),
    # Tool pattern first: a role's rule for one tool holds against a principal's `*`.
    "tool over subject": Case(
        [
            g("g_all", "principal:alice", "*"),
            g("g_tool", "role:analyst", "write_file", "WRITE", arguments=REPORTS),
        ],
        {"path": "secrets.txt"},
        (False, "grant:g_tool", False),
    ),
    "then principal over role": Case(
        [
            g("g_role", "role:analyst", "write_file", "WRITE", arguments=REPORTS),
            g("g_alice", "principal:alice", "write_file", "WRITE"),
        ],
        {"path": "secrets.txt"},
        (True, "grant:g_alice", False),
    ),
    "category over *": Case(
        [
            g("g_all", "principal:alice", "*"),
            g("g_files", "role:analyst", "category:files", "WRITE", arguments=REPORTS),
        ],
        {"path": "secrets.txt"},
        (False, "grant:g_files", False),
    ),
    "toolset over category": Case(
        [
            g("g_cat", "principal:alice", "category:notes", "WRITE"),
            g("g_set", "role:analyst", "notes.*", "WRITE", arguments={"text": ("ok",)}),
        ],
        {"text": "no"},
        (False, "grant:g_set", False),
        tool=NOTES_ADD,
    ),
    "name over toolset": Case(
        [
            g("g_set", "principal:alice", "notes.*", "WRITE"),
            g("g_add", "role:analyst", "notes.add", "WRITE", arguments={"text": ("ok",)}),
        ],
        {"text": "no"},
        (False, "grant:g_add", False),
        tool=NOTES_ADD,
    ),
    # Equally specific: any that allows, allows (the oldest such is the rule).
    "equal: either prefix": Case(
        [
            g("g_a", "role:analyst", "write_file", "WRITE", arguments=REPORTS),
            g("g_b", "role:auditor", "write_file", "WRITE", arguments={"path": ("tmp/",)}),
        ],
        {"path": "tmp/x"},
        (True, "grant:g_b", False),
    ),
    "equal: both refuse, the oldest is the rule": Case(
        [
            g("g_a", "role:analyst", "write_file", "WRITE", arguments=REPORTS),
            g("g_b", "role:auditor", "write_file", "WRITE", arguments={"path": ("tmp/",)}),
            g("g_all", "principal:alice", "*"),
        ],
        {"path": "x"},
        (False, "grant:g_a", False),
    ),
    # A grant below the tool's level says nothing about it.
    "a lower level does not count": Case(
        [g("g_all", "role:analyst", "*"), g("g_low", "principal:alice", "write_file", "READ")],
        {"path": "x"},
        (True, "grant:g_all", False),
    ),
    "a lower level alone refuses": Case(
        [g("g_low", "principal:alice", "write_file", "READ")],
        {"path": "x"},
        (False, "grant:g_low", False),
    ),
    # Expired and revoked grants are gone; a window or an argument rule refuses.
    "expired does not count": Case(
        [
            g("g_all", "role:analyst", "*"),
            g(
                "g_old",
                "principal:alice",
                "write_file",
                "WRITE",
                arguments=REPORTS,
                expires_at=NOW - timedelta(seconds=1),
            ),
        ],
        {"path": "x"},
        (True, "grant:g_all", False),
    ),
    "revoked does not count": Case(
        [
            g("g_all", "role:analyst", "*"),
            g(
                "g_gone",
                "principal:alice",
                "write_file",
                "WRITE",
                arguments=REPORTS,
                revoked_at=NOW - timedelta(hours=1),
            ),
        ],
        {"path": "x"},
        (True, "grant:g_all", False),
    ),
    "outside its window it refuses": Case(
        [
            g("g_all", "role:analyst", "*"),
            g(
                "g_tue",
                "principal:alice",
                "write_file",
                "WRITE",
                window=TimeWindow.parse("tue 09:00-17:00"),
            ),
        ],
        {"path": "x"},
        (False, "grant:g_tue", False),
    ),
    "outside its window it hides the tool": Case(
        [
            g("g_all", "role:analyst", "*"),
            g(
                "g_tue",
                "principal:alice",
                "write_file",
                "WRITE",
                window=TimeWindow.parse("tue 09:00-17:00"),
            ),
        ],
        None,
        (False, "grant:g_tue", False),
    ),
    "the default level does not outrank a refusal": Case(
        [g("g_tool", "principal:alice", "write_file", "WRITE", arguments=REPORTS)],
        {"path": "x"},
        (False, "grant:g_tool", False),
        default=PermissionLevel.ADMIN,
    ),
    # Any grant that counts may ask for approval; so may AGENTD_APPROVAL_TOOLS.
    "approval from a broader grant holds": Case(
        [
            g("g_ask", "role:analyst", "*", requires_approval=True),
            g("g_alice", "principal:alice", "write_file", "WRITE"),
        ],
        {"path": "x"},
        (True, "grant:g_alice", True),
    ),
    "approval from a grant below the level holds": Case(
        [
            g("g_ask", "role:analyst", "*", "READ", requires_approval=True),
            g("g_alice", "principal:alice", "write_file", "WRITE"),
        ],
        {"path": "x"},
        (True, "grant:g_alice", True),
    ),
    "approval from a grant outside its window holds": Case(
        [
            g(
                "g_ask",
                "role:analyst",
                "category:files",
                requires_approval=True,
                window=TimeWindow.parse("tue 09:00-17:00"),
            ),
            g("g_alice", "principal:alice", "write_file", "WRITE"),
        ],
        {"path": "x"},
        (True, "grant:g_alice", True),
    ),
    "approval with the default level": Case(
        [g("g_ask", "role:analyst", "*", "READ", requires_approval=True)],
        {"path": "x"},
        (True, "default:write", True),
        default=PermissionLevel.WRITE,
    ),
    "approval tools": Case(
        [g("g_alice", "principal:alice", "write_file", "WRITE")],
        {"path": "x"},
        (True, "grant:g_alice", True),
        approval_tools=["category:files"],
    ),
    "another principal's approval does not count": Case(
        [
            g("g_bob", "principal:bob", "*", requires_approval=True),
            g("g_alice", "principal:alice", "write_file", "WRITE"),
        ],
        {"path": "x"},
        (True, "grant:g_alice", False),
    ),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_the_most_specific_grant_decides(case: Case) -> None:
    policy = GrantPolicy(case.grants, default=case.default, approval_tools=case.approval_tools)
    decision = policy.decide(case.who, case.tool, case.arguments, now=NOW)
    assert (decision.allowed, decision.rule, decision.needs_approval) == case.expected


def test_reasons_name_the_grants_that_refused_and_that_ask_for_approval() -> None:
    both = GrantPolicy(CASES["equal: both refuse, the oldest is the rule"].grants)
    refused = both.decide(ALICE, WRITE_FILE, {"path": "x"}, now=NOW)
    assert refused.reason == (
        "grant g_a: argument 'path' is not under reports/; "
        "grant g_b: argument 'path' is not under tmp/"
    )
    asking = GrantPolicy(
        [
            g("g_one", "role:analyst", "*", requires_approval=True),
            g("g_two", "principal:alice", "write_file", "WRITE", requires_approval=True),
        ]
    )
    asked = asking.decide(ALICE, WRITE_FILE, {"path": "x"}, now=NOW)
    assert (asked.rule, asked.reason) == (
        "grant:g_two",
        "grants g_one, g_two require a human's approval of each call",
    )
    dev = GrantPolicy([DEV_KEY, NEW]).decide(DEVELOPER, WRITE_FILE, {"path": "x"}, now=NOW)
    assert dev.reason == "grant g_new: argument 'path' is not under reports/"


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("write_file", "notes.*"),
        ("notes.*", "category:notes"),
        ("category:notes", "*"),
    ],
)
def test_specificity_orders_tool_patterns_then_subjects(first: str, second: str) -> None:
    for subject in ("principal:alice", "role:analyst"):
        assert g("a", subject, first).specificity > g("b", "principal:alice", second).specificity
    assert g("a", "principal:alice", first).specificity > g("b", "role:x", first).specificity
