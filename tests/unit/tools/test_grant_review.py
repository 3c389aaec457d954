"""Reviewing a new grant: shadowed by more specific grants, or of no effect at all."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta

import pytest

from records.tools.grants import Grant, TimeWindow
from records.tools.model import PermissionLevel
from tools.grant_review import review

NOW = datetime(2026, 11, 23, 10, 30, tzinfo=UTC)


def g(grant_id: str, subject: str, tool: str, level: str = "ADMIN", **rules: object) -> Grant:
    return Grant(
        grant_id=grant_id,
        tenant="default",
        subject=subject,
        tool=tool,
        level=PermissionLevel[level],
        created_at=NOW - timedelta(days=1),
        **rules,  # type: ignore[arg-type]
    )


DEV_KEY = g("g_devkey", "role:admin", "*")
DEVELOPER_KEYS: dict[str, list[tuple[str, ...]]] = {"developer": [("admin",)]}
REPORTS = {"path": ("reports/",)}
ALICE_ALL = g("g_alice", "principal:alice", "*")


@dataclass(frozen=True)
class Case:
    existing: list[Grant]
    new: Grant
    expected: list[tuple[str, list[str]]]
    """(kind, ids of the grants named) of each warning."""
    held: dict[str, list[tuple[str, ...]]] = field(default_factory=dict)


CASES = {
    # The development key already gives the developer every tool.
    "dev key: a plain grant adds nothing": Case(
        [DEV_KEY],
        g("g_new", "principal:developer", "write_file", "WRITE"),
        [("no effect", ["g_devkey"])],
        DEVELOPER_KEYS,
    ),
    "dev key: with a rule and approval it counts": Case(
        [DEV_KEY],
        g(
            "g_new",
            "principal:developer",
            "write_file",
            "WRITE",
            arguments=REPORTS,
            requires_approval=True,
        ),
        [],
        DEVELOPER_KEYS,
    ),
    "dev key: a principal without keys may not hold the role": Case(
        [DEV_KEY],
        g("g_new", "principal:developer", "write_file", "WRITE"),
        [],
    ),
    "dev key: a key without the role": Case(
        [DEV_KEY],
        g("g_new", "principal:developer", "write_file", "WRITE"),
        [],
        {"developer": [("admin",), ("reader",)]},
    ),
    # Same subject: the same or less than a broader grant gives, and no rule of its own.
    "a duplicate": Case(
        [ALICE_ALL],
        g("g_new", "principal:alice", "*"),
        [("no effect", ["g_alice"])],
    ),
    "a lower level": Case(
        [ALICE_ALL],
        g("g_new", "principal:alice", "category:files", "READ"),
        [("no effect", ["g_alice"])],
    ),
    "a higher level than the broad grant": Case(
        [g("g_read", "principal:alice", "*", "READ")],
        g("g_new", "principal:alice", "write_file", "WRITE"),
        [],
    ),
    "approval already asked for": Case(
        [g("g_ask", "principal:alice", "*", requires_approval=True)],
        g("g_new", "principal:alice", "write_file", "WRITE", requires_approval=True),
        [("no effect", ["g_ask"])],
    ),
    "approval not yet asked for": Case(
        [ALICE_ALL],
        g("g_new", "principal:alice", "write_file", "WRITE", requires_approval=True),
        [],
    ),
    "the broad grant has a window": Case(
        [g("g_win", "principal:alice", "*", window=TimeWindow.parse("09:00-17:00"))],
        g("g_new", "principal:alice", "write_file", "WRITE"),
        [],
    ),
    "the broad grant expires first": Case(
        [g("g_soon", "principal:alice", "*", expires_at=NOW + timedelta(hours=1))],
        g("g_new", "principal:alice", "write_file", "WRITE"),
        [],
    ),
    "the broad grant outlasts it": Case(
        [g("g_soon", "principal:alice", "*", expires_at=NOW + timedelta(hours=1))],
        g(
            "g_new",
            "principal:alice",
            "write_file",
            "WRITE",
            expires_at=NOW + timedelta(minutes=30),
        ),
        [("no effect", ["g_soon"])],
    ),
    "the broad grant is expired": Case(
        [g("g_old", "principal:alice", "*", expires_at=NOW - timedelta(hours=1))],
        g("g_new", "principal:alice", "write_file", "WRITE"),
        [],
    ),
    "the broad grant is another tenant's": Case(
        [replace(ALICE_ALL, tenant="other")],
        g("g_new", "principal:alice", "write_file", "WRITE"),
        [],
    ),
    # A rule between the broad grant and the new one, for callers it may name: it counts.
    "it would lift a role's rule": Case(
        [ALICE_ALL, g("g_ops", "role:ops", "write_file", "WRITE", arguments=REPORTS)],
        g("g_new", "principal:alice", "write_file", "WRITE"),
        [],
    ),
    "for a role: a principal's rule it would lift": Case(
        [
            g("g_ops", "role:ops", "*"),
            g("g_bob", "principal:bob", "category:files", "WRITE", arguments=REPORTS),
        ],
        g("g_new", "role:ops", "write_file", "WRITE"),
        [],
    ),
    "for a role: a principal's rule above it does not matter": Case(
        [
            g("g_ops", "role:ops", "*"),
            g("g_bob", "principal:bob", "write_file", "WRITE", arguments=REPORTS),
        ],
        g("g_new", "role:ops", "write_file", "WRITE"),
        [("no effect", ["g_ops"])],
    ),
    # Shadowed: more specific grants decide part of what it covers.
    "shadowed by the same role's rule for one tool": Case(
        [g("g_ops", "role:ops", "write_file", "WRITE", arguments=REPORTS)],
        g("g_new", "role:ops", "*", "WRITE"),
        [("shadowed", ["g_ops"])],
    ),
    "shadowed for the developer": Case(
        [
            g(
                "g_dev",
                "principal:developer",
                "write_file",
                "WRITE",
                arguments=REPORTS,
                requires_approval=True,
            )
        ],
        DEV_KEY,
        [("shadowed", ["g_dev"])],
        DEVELOPER_KEYS,
    ),
    "not shadowed by a principal not known to hold the role": Case(
        [g("g_dev", "principal:developer", "write_file", "WRITE", arguments=REPORTS)],
        DEV_KEY,
        [],
    ),
    "shadowed where the principal holds the role": Case(
        [g("g_admins", "role:admin", "write_file", "WRITE", arguments=REPORTS)],
        g("g_new", "principal:developer", "*"),
        [("shadowed", ["g_admins"])],
        DEVELOPER_KEYS,
    ),
    "a broader grant does not shadow": Case(
        [DEV_KEY],
        g("g_new", "principal:developer", "write_file", "WRITE", arguments=REPORTS),
        [],
        DEVELOPER_KEYS,
    ),
    "a grant of another toolset does not shadow": Case(
        [g("g_crm", "principal:alice", "crm.add", "WRITE", arguments={"x": ("y",)})],
        g("g_new", "principal:alice", "notes.*", "WRITE"),
        [],
    ),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_review(case: Case) -> None:
    warnings = review(case.new, [*case.existing, case.new], case.held, now=NOW)
    got = [(w.kind, [grant.grant_id for grant in w.grants]) for w in warnings]
    assert got == case.expected
    for warning in warnings:
        assert warning.text.startswith(f"{case.new.grant_id} ")
        assert all(grant.grant_id in warning.text for grant in warning.grants)


def test_the_words_of_each_warning() -> None:
    (void,) = review(
        g("g_new", "principal:developer", "write_file", "WRITE"), [DEV_KEY], DEVELOPER_KEYS
    )
    assert void.text == (
        "g_new has no effect: g_devkey (role:admin * ADMIN) already allows every call it "
        "covers (principal developer holds role admin on each of its API keys)"
    )
    dev = g(
        "g_dev",
        "principal:developer",
        "write_file",
        "WRITE",
        arguments=REPORTS,
        requires_approval=True,
    )
    (shadowed,) = review(DEV_KEY, [dev], DEVELOPER_KEYS)
    assert shadowed.text == (
        "g_devkey is shadowed where more specific grants apply (they decide those calls: its "
        "level, window and argument rules do not count there; it asks no approval): "
        "g_dev (principal:developer write_file WRITE; path under reports/; approval) "
        "for principal developer"
    )


def test_a_review_too_large_to_make_says_nothing() -> None:
    many = [g(f"g_{n}", f"role:r{n}", f"t{n}", arguments=REPORTS) for n in range(400)]
    assert review(g("g_new", "role:ops", "*"), [g("g_ops", "role:ops", "*"), *many]) == []
