"""The API key store contract, on memory, SQLite and the machine's PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest

from records.keys import new_key, parse
from stores.api_keys.base import KeyStore
from stores.api_keys.memory import InMemoryKeyStore
from stores.api_keys.sql import SqlKeyStore
from tests.contract.conftest import SQL_BACKENDS, migrated_database


@pytest.fixture(params=["memory", *SQL_BACKENDS])
async def keys(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[KeyStore]:
    if request.param == "memory":
        yield InMemoryKeyStore()
        return
    async with migrated_database(request.param, tmp_path) as database:
        yield SqlKeyStore(database)


async def test_a_key_round_trips_and_only_its_secret_matches(keys: KeyStore) -> None:
    key, plaintext = new_key("acme", "auth0|5f7c8ec7", ("admin", "team/eu"))
    await keys.add(key)
    stored = await keys.get(key.key_id)
    assert stored == key
    parsed = parse(plaintext)
    assert parsed is not None
    assert stored.matches(parsed[1])
    assert not stored.matches(parsed[1][:-1] + "x")
    assert await keys.get("000000000000") is None


async def test_keys_are_listed_oldest_first(keys: KeyStore) -> None:
    made = []
    for offset in (2, 0, 1):
        key, _ = new_key("acme", f"p{offset}", ())
        key = replace(key, created_at=key.created_at + timedelta(seconds=offset))
        await keys.add(key)
        made.append(key)
    assert [k.principal for k in await keys.list()] == ["p0", "p1", "p2"]


async def test_a_revoked_key_stays_readable_and_cannot_be_revoked_twice(keys: KeyStore) -> None:
    key, _ = new_key("acme", "alice", ())
    await keys.add(key)
    assert await keys.revoke(key.key_id) is True
    revoked = await keys.get(key.key_id)
    assert revoked is not None
    assert not revoked.active
    assert revoked.revoked_at is not None
    assert await keys.revoke(key.key_id) is False
    assert await keys.revoke("000000000000") is False
    assert [k.key_id for k in await keys.list()] == [key.key_id]


async def test_the_keys_a_principal_holds_in_one_tenant_and_only_those(keys: KeyStore) -> None:
    made = []
    for offset, (tenant, principal) in enumerate(
        [("acme", "alice"), ("acme", "bob"), ("globex", "alice"), ("acme", "alice")]
    ):
        key, _ = new_key(tenant, principal, ("operator",))
        key = replace(key, created_at=key.created_at + timedelta(seconds=offset))
        await keys.add(key)
        made.append(key)
    await keys.revoke(made[0].key_id)
    held = await keys.held_by("acme", "alice")
    assert [k.key_id for k in held] == [made[0].key_id, made[3].key_id]  # oldest first
    assert not held[0].active  # revoked ones too: they tell a principal's standing
    assert await keys.held_by("acme", "carol") == []
    assert [k.key_id for k in await keys.held_by("globex", "alice")] == [made[2].key_id]
