"""Grants and the grant policy: subjects, tools, levels, expiry, windows, argument prefixes."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from core.identity import Principal
from records.tools.grants import Grant, TimeWindow, prefix_allows
from records.tools.model import PermissionLevel, RiskLevel, ToolSpec
from tools.permissions import GrantPolicy, LevelPolicy

NOW = datetime(2026, 11, 23, 10, 30, tzinfo=UTC)  # a Monday
ALICE = Principal("alice", "acme", ("analyst",))


def spec(name: str = "http_request", category: str = "web", level: str = "WRITE") -> ToolSpec:
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


def grant(**changes: object) -> Grant:
    base = Grant(
        grant_id="grant_1",
        tenant="acme",
        subject="principal:alice",
        tool="http_request",
        level=PermissionLevel.WRITE,
        created_at=NOW - timedelta(days=1),
    )
    return replace(base, **changes)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "inside", "outside"),
    [
        ("09:00-17:00", [datetime(2026, 11, 22, 9, 0, tzinfo=UTC)], [NOW.replace(hour=17)]),
        ("mon-fri 09:00-17:00", [NOW], [datetime(2026, 11, 22, 10, 0, tzinfo=UTC)]),  # Sunday
        # Wraps midnight: Friday 22:00 to Saturday 06:00 belongs to Friday.
        (
            "fri 22:00-06:00",
            [datetime(2026, 11, 27, 23, 0, tzinfo=UTC), datetime(2026, 11, 28, 5, 59, tzinfo=UTC)],
            [datetime(2026, 11, 27, 5, 0, tzinfo=UTC), datetime(2026, 11, 28, 22, 30, tzinfo=UTC)],
        ),
        (
            "sat-mon 00:00-24:00",
            [datetime(2026, 11, 22, 12, tzinfo=UTC), NOW],
            [NOW.replace(day=24)],
        ),
    ],
)
def test_time_windows(text: str, inside: list[datetime], outside: list[datetime]) -> None:
    window = TimeWindow.parse(text)
    assert all(window.contains(moment) for moment in inside)
    assert not any(window.contains(moment) for moment in outside)
    assert TimeWindow.parse(str(window)) == window


@pytest.mark.parametrize("text", ["", "9-17", "25:00-26:00", "mon 10:00-10:00", "xyz 09:00-10:00"])
def test_bad_time_windows_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="time window"):
        TimeWindow.parse(text)


@pytest.mark.parametrize(
    ("prefix", "value", "allowed"),
    [
        ("https://api.example.com/v1/", "https://api.example.com/v1/items?q=1", True),
        ("https://api.example.com/v1/", "https://api.example.com/v1", True),
        ("https://api.example.com/v1/", "https://api.example.com/v10/x", False),
        ("https://api.example.com/v1/", "https://api.example.com/v1/../admin", False),
        ("https://api.example.com/", "https://api.example.com.evil.test/", False),
        ("https://api.example.com", "https://api.example.com@evil.test/", False),
        ("https://api.example.com/", "https://user:pw@api.example.com/", False),
        ("https://api.example.com/", "http://api.example.com/", False),
        ("https://api.example.com/", "https://api.example.com:8443/", False),
        ("https://API.example.com/", "HTTPS://api.example.com/x", True),
        ("reports/", "reports/2026/q3.csv", True),
        ("reports/", "reports", True),
        ("reports/", "reports-old/x", False),
        ("reports/", "reports/../secrets.txt", False),
        ("reports/", "/reports/x", True),  # workspace paths are relative to one root
        ("reports/", "reports/x\x00.csv", False),
        ("reports/", "reports\\..\\x", False),
    ],
)
def test_prefixes_are_compared_as_urls_or_paths(prefix: str, value: str, allowed: bool) -> None:
    assert prefix_allows(prefix, value) is allowed


def test_default_deny_and_default_level() -> None:
    assert not GrantPolicy().decide(ALICE, spec(level="NONE")).allowed
    decision = GrantPolicy().decide(ALICE, spec())
    assert (decision.allowed, decision.rule) == (False, "default:deny")
    assert "no grant" in decision.reason
    read = GrantPolicy(default=PermissionLevel.READ)
    assert read.decide(ALICE, spec(level="READ")).rule == "default:read"
    assert not read.decide(ALICE, spec(level="WRITE")).allowed


@pytest.mark.parametrize(
    ("changes", "allowed"),
    [
        ({}, True),
        ({"subject": "principal:bob"}, False),
        ({"subject": "role:analyst"}, True),
        ({"subject": "role:admin"}, False),
        ({"tenant": "other"}, False),
        ({"tool": "category:web"}, True),
        ({"tool": "category:files"}, False),
        ({"tool": "*"}, True),
        ({"tool": "read_file"}, False),
        ({"level": PermissionLevel.READ}, False),
        ({"level": PermissionLevel.ADMIN}, True),
        ({"expires_at": NOW - timedelta(seconds=1)}, False),
        ({"expires_at": NOW + timedelta(seconds=1)}, True),
        ({"revoked_at": NOW - timedelta(hours=1)}, False),
        ({"window": TimeWindow.parse("mon 10:00-11:00")}, True),
        ({"window": TimeWindow.parse("tue 10:00-11:00")}, False),
    ],
)
def test_which_grants_apply(changes: dict[str, object], allowed: bool) -> None:
    decision = GrantPolicy([grant(**changes)]).decide(ALICE, spec(), now=NOW)
    assert decision.allowed is allowed
    if allowed:
        assert decision.rule == "grant:grant_1"


def test_argument_prefixes_decide_calls_but_not_listings() -> None:
    policy = GrantPolicy([grant(arguments={"url": ("https://api.example.com/",)})])
    assert policy.decide(ALICE, spec(), now=NOW).allowed  # listing: may use it at all
    ok = policy.decide(ALICE, spec(), {"url": "https://api.example.com/x"}, now=NOW)
    assert ok.allowed
    refused = policy.decide(ALICE, spec(), {"url": "http://169.254.169.254/"}, now=NOW)
    assert (refused.allowed, refused.rule) == (False, "grant:grant_1")
    assert "'url' is not under https://api.example.com/" in refused.reason
    not_text = policy.decide(ALICE, spec(), {"url": ["https://api.example.com/"]}, now=NOW)
    assert not not_text.allowed


def test_an_approval_requirement_holds_beside_a_grant_without_one() -> None:
    careful = grant(grant_id="grant_careful", requires_approval=True)
    assert GrantPolicy([careful]).decide(ALICE, spec(), now=NOW).needs_approval
    free = grant(grant_id="grant_free")
    decision = GrantPolicy([careful, free]).decide(ALICE, spec(), now=NOW)
    # Equally specific, both allow: the oldest decides, and the approval holds.
    assert (decision.rule, decision.needs_approval) == ("grant:grant_careful", True)
    assert decision.reason == "grant grant_careful requires a human's approval of each call"
    assert GrantPolicy([free]).decide(ALICE, spec(), now=NOW).needs_approval is False
    always = GrantPolicy([free], approval_tools=["http_request"])
    assert always.decide(ALICE, spec(), now=NOW).needs_approval


def test_grant_subjects_are_checked() -> None:
    with pytest.raises(ValueError, match="subject"):
        grant(subject="alice")
    with pytest.raises(ValueError, match="subject"):
        grant(subject="role:")


@pytest.mark.parametrize(
    ("listed", "needs"),
    [
        (["notes.*"], {"notes.add", "notes.search"}),
        (["notes.add"], {"notes.add"}),
        (["category:web"], {"http_request"}),
        (["*"], {"notes.add", "notes.search", "http_request", "crm.add"}),
        (["notes"], set()),  # a toolset's name alone names no tool
    ],
)
def test_approval_tools_name_tools_as_grants_do(listed: list[str], needs: set[str]) -> None:
    specs = [
        spec(name="notes.add", category="notes"),
        spec(name="notes.search", category="notes"),
        spec(name="http_request", category="web"),
        spec(name="crm.add", category="crm"),
    ]
    free = grant(tool="*")
    for policy in (
        GrantPolicy([free], approval_tools=listed),
        GrantPolicy(default=PermissionLevel.ADMIN, approval_tools=listed),
        LevelPolicy(PermissionLevel.ADMIN, frozenset(listed)),
    ):
        asked = {s.name for s in specs if policy.decide(ALICE, s).needs_approval}
        assert asked == needs
