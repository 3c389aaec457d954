"""Push notification configs' secrets at rest, on SQLite and PostgreSQL, read in the raw
rows: the token and credentials are sealed (no plain text in a row) and read back plain;
without keys a config carrying either is refused and one without is kept; after a
rotation rows sealed with the old key still read, and `reseal` moves them to the new one;
rows kept in plain text (before there was a key) read as they are and `seal_plain` seals
them once, however many replicas run it at once; a value that does not open fails its
own config alone."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import insert, select, update

from core.errors import KeyRequiredError, SecretUnreadableError
from core.keyring import KeyRing, key_id
from records.push_configs import PushConfig
from stores.push_configs.sql import SqlPushConfigStore
from stores.sql.database import Database
from stores.sql.schema import a2a_push_configs
from tests.contract.conftest import SQL_BACKENDS, migrated_database

NOW = datetime(2026, 12, 7, 18, 0, tzinfo=UTC)
OLD, NEW = bytes(range(32)), bytes(range(100, 132))
TOKEN, CREDENTIALS = "tok-PLAIN-token-1", "cred-PLAIN-secret-2"


def _config(config_id: str, token: str = TOKEN, credentials: str = CREDENTIALS) -> PushConfig:
    return PushConfig(
        "acme", "task_1", config_id, "http://127.0.0.1:9/in", token, "Bearer", credentials, "al"
    )


@pytest.fixture(params=SQL_BACKENDS)
async def database(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    async with migrated_database(request.param, tmp_path) as database:
        yield database


async def _rows(database: Database) -> dict[str, dict[str, Any]]:
    async with database.engine.connect() as connection:
        rows = (await connection.execute(select(a2a_push_configs))).mappings()
        return {row["config_id"]: dict(row) for row in rows}


def _key_ids(row: dict[str, Any]) -> tuple[str, str]:
    """The ids of the keys the row's token and credentials are sealed with."""
    return row["token"].split(":")[2], row["auth_credentials"].split(":")[2]


async def test_secrets_are_sealed_in_the_rows_and_read_back_plain(database: Database) -> None:
    store = SqlPushConfigStore(database, KeyRing([NEW]))
    await store.put(_config("hook"), NOW)
    await store.put(_config("bare", "", ""), NOW)
    rows = await _rows(database)
    assert TOKEN not in str(rows)
    assert CREDENTIALS not in str(rows)
    assert "PLAIN" not in str(rows)
    assert _key_ids(rows["hook"]) == (key_id(NEW), key_id(NEW))
    assert rows["hook"]["token"].startswith("enc:v1:")
    assert (rows["bare"]["token"], rows["bare"]["auth_credentials"]) == ("", "")
    assert rows["hook"]["auth_scheme"] == "Bearer"  # not a secret
    assert await store.get("acme", "task_1", "hook") == _config("hook")
    assert await store.of_task("acme", "task_1") == [_config("bare", "", ""), _config("hook")]
    claimed = await store.claim("replica-a", NOW, NOW + timedelta(seconds=10), 10)
    assert sorted(claimed, key=lambda c: c.config_id) == [_config("bare", "", ""), _config("hook")]


async def test_without_keys_secrets_are_refused_and_a_config_without_them_kept(
    database: Database,
) -> None:
    store = SqlPushConfigStore(database, KeyRing())
    with pytest.raises(KeyRequiredError, match="a push notification config's token") as refused:
        await store.put(_config("hook"), NOW)
    assert refused.value.reason == "KEY_REQUIRED"
    assert "AGENTD_KEYS" in refused.value.message
    with pytest.raises(KeyRequiredError, match="config's credentials"):
        await store.put(_config("hook", token=""), NOW)
    await store.put(_config("bare", "", ""), NOW)
    assert list(await _rows(database)) == ["bare"]  # nothing of the refused one written
    assert await store.get("acme", "task_1", "bare") == _config("bare", "", "")
    with pytest.raises(KeyRequiredError):
        await store.reseal(KeyRing())


async def test_after_a_rotation_old_rows_read_and_reseal_moves_them(database: Database) -> None:
    await SqlPushConfigStore(database, KeyRing([OLD])).put(_config("one"), NOW)
    await SqlPushConfigStore(database, KeyRing([OLD])).put(_config("two", token=""), NOW)
    rotated = KeyRing([NEW, OLD])
    store = SqlPushConfigStore(database, rotated)
    assert await store.get("acme", "task_1", "one") == _config("one")  # the old key opens
    await store.put(_config("three"), NOW)  # written with the new one
    rows = await _rows(database)
    assert _key_ids(rows["one"]) == (key_id(OLD), key_id(OLD))
    assert _key_ids(rows["three"]) == (key_id(NEW), key_id(NEW))

    assert await store.reseal(rotated) == 3  # one's two values, two's credentials
    assert await store.reseal(rotated) == 0
    rows = await _rows(database)
    assert _key_ids(rows["one"]) == (key_id(NEW), key_id(NEW))
    assert rows["two"]["token"] == ""
    assert rows["two"]["auth_credentials"].split(":")[2] == key_id(NEW)
    assert _key_ids(rows["three"]) == (key_id(NEW), key_id(NEW))
    assert "PLAIN" not in str(rows)
    dropped = SqlPushConfigStore(database, KeyRing([NEW]))  # the old key dropped
    assert await dropped.of_task("acme", "task_1") == [
        _config("one"),
        _config("three"),
        _config("two", token=""),
    ]


async def _plain_rows(database: Database, *config_ids: str) -> None:
    """Rows as the code before the key ring wrote them: secrets in plain text."""
    async with database.engine.begin() as connection:
        for config_id in config_ids:
            values = {
                "tenant": "acme",
                "task_id": "task_1",
                "config_id": config_id,
                "url": "http://127.0.0.1:9/in",
                "token": TOKEN,
                "auth_scheme": "Bearer",
                "auth_credentials": CREDENTIALS,
                "created_by": "al",
                "created_at": NOW,
                "delivered_through": 0,
                "finished": False,
                "claimed_by": "",
                "claimed_until": None,
            }
            await connection.execute(insert(a2a_push_configs).values(**values))


async def test_plain_rows_read_as_they_are_and_are_sealed_once(database: Database) -> None:
    await _plain_rows(database, "a", "b", "c")
    without = SqlPushConfigStore(database, KeyRing())
    assert await without.get("acme", "task_1", "a") == _config("a")
    assert await without.plain_count() == 6
    ring = KeyRing([NEW])
    replicas = [SqlPushConfigStore(database, ring) for _ in range(3)]
    counts = await asyncio.gather(*(r.seal_plain(ring) for r in replicas))  # starting together
    assert sum(counts) == 6  # each value sealed once
    rows = await _rows(database)
    assert "PLAIN" not in str(rows)
    assert {_key_ids(row) for row in rows.values()} == {(key_id(NEW), key_id(NEW))}
    assert await replicas[0].seal_plain(ring) == 0
    assert await without.plain_count() == 0
    assert await replicas[0].of_task("acme", "task_1") == [_config(i) for i in "abc"]
    # seal_plain leaves sealed values alone, whatever their key: moving them is reseal's
    assert (
        await SqlPushConfigStore(database, KeyRing([OLD, NEW])).seal_plain(KeyRing([OLD, NEW])) == 0
    )


async def test_a_value_that_does_not_open_fails_its_own_config_alone(database: Database) -> None:
    await SqlPushConfigStore(database, KeyRing([OLD])).put(_config("lost"), NOW)
    store = SqlPushConfigStore(database, KeyRing([NEW]))  # OLD removed from AGENTD_KEYS
    await store.put(_config("kept"), NOW)
    with pytest.raises(SecretUnreadableError, match=f"'lost'.*key '{key_id(OLD)}'") as failed:
        await store.get("acme", "task_1", "lost")
    assert failed.value.reason == "KEY_REQUIRED"
    assert await store.get("acme", "task_1", "kept") == _config("kept")
    with pytest.raises(SecretUnreadableError):
        await store.of_task("acme", "task_1")
    until = NOW + timedelta(seconds=10)
    assert await store.claim("replica-a", NOW, until, 10) == [_config("kept")]
    assert await store.claim("replica-a", NOW, until, 10) == []  # "lost": said once a lease
    assert await store.reseal(KeyRing([NEW])) == 0  # left as it is
    assert await store.delete("acme", "task_1", "lost") is True  # and it can be removed

    # A sealed value moved to another row, or another column, does not open there.
    rows = await _rows(database)
    async with database.engine.begin() as connection:
        kept = rows["kept"]
        swapped = {"token": kept["auth_credentials"], "auth_credentials": kept["token"]}
        query = update(a2a_push_configs).where(a2a_push_configs.c.config_id == "kept")
        await connection.execute(query.values(**swapped))
    with pytest.raises(SecretUnreadableError, match="altered, or sealed for another use or row"):
        await store.get("acme", "task_1", "kept")
    without = SqlPushConfigStore(database, KeyRing())
    with pytest.raises(SecretUnreadableError, match="the server holds no key"):
        await without.get("acme", "task_1", "kept")
