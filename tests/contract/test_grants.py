"""The grant store contract, on memory, SQLite and the machine's PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from records.tools.approval_rules import ApprovalRule
from records.tools.grants import Grant, TimeWindow, new_grant_id
from records.tools.model import PermissionLevel
from records.waits import WaitAction
from stores.grants.base import GrantStore
from stores.grants.memory import InMemoryGrantStore
from stores.grants.sql import SqlGrantStore
from tests.contract.conftest import SQL_BACKENDS, migrated_database

T0 = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


@pytest.fixture(params=["memory", *SQL_BACKENDS])
async def grants(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[GrantStore]:
    if request.param == "memory":
        yield InMemoryGrantStore()
        return
    async with migrated_database(request.param, tmp_path) as database:
        yield SqlGrantStore(database)


def _grant(tenant: str, offset: int, **extra: object) -> Grant:
    return Grant(
        grant_id=new_grant_id(),
        tenant=tenant,
        subject="role:analyst",
        tool="category:web",
        level=PermissionLevel.WRITE,
        created_at=T0 + timedelta(seconds=offset),
        created_by="cli:ops",
        **extra,  # type: ignore[arg-type]
    )


async def test_every_field_round_trips(grants: GrantStore) -> None:
    full = _grant(
        "acme",
        0,
        expires_at=T0 + timedelta(days=7),
        window=TimeWindow.parse("mon-fri 09:00-17:30"),
        arguments={"url": ("https://api.example.com/", "https://ünïcode.example/ü")},
        requires_approval=True,
    )
    await grants.add(full)
    assert await grants.list("acme") == [full]


async def test_an_approval_rule_round_trips(grants: GrantStore) -> None:
    rule = ApprovalRule(
        approver_roles=("finance", "lead"),
        deadline_seconds=300.0,
        on_deadline=WaitAction.ESCALATE,
        escalate_to_roles=("ops",),
        escalation_deadline_seconds=600.0,
        on_escalation_deadline=WaitAction.APPROVE,
        remind_before_seconds=60.0,
    )
    ruled = _grant("acme", 0, requires_approval=True, approval=rule)
    plain = _grant("acme", 1, requires_approval=True)
    await grants.add(ruled)
    await grants.add(plain)
    assert await grants.list("acme") == [ruled, plain]
    found = await grants.list("acme")
    assert (found[0].approval, found[1].approval) == (rule, None)


async def test_listing_by_tenant_oldest_first_and_revocation(grants: GrantStore) -> None:
    second, first, other = _grant("acme", 2), _grant("acme", 1), _grant("globex", 0)
    for grant in (second, first, other):
        await grants.add(grant)
    assert [g.grant_id for g in await grants.list("acme")] == [first.grant_id, second.grant_id]
    assert len(await grants.list()) == 3
    assert await grants.revoke(first.grant_id)
    assert not await grants.revoke(first.grant_id)  # once only
    assert not await grants.revoke("grant_unknown")
    assert [g.grant_id for g in await grants.list("acme")] == [second.grant_id]
    everything = await grants.list("acme", include_revoked=True)
    assert [g.revoked_at is not None for g in everything] == [True, False]
