"""`agentd keys new` and `agentd keys reencrypt`, as an operator runs them: a fresh key
each time; after a rotation (the new key first, the old one after it) `reencrypt` moves
every push config's secrets and webhook signing secret sealed with the old key, and any
still kept in plain text, to the new key on PostgreSQL, says how many, and moves nothing
the second time; without a key, or with a malformed one, it stops at once (exit 2),
never echoing a key."""

from __future__ import annotations

import asyncio
import base64
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, update

from core.keyring import KeyRing, key_id, parse_key
from records.push_configs import PushConfig
from records.webhooks import SECRET_PURPOSE, Webhook, secret_binding
from server.commands.cli import main
from stores.push_configs.sql import SqlPushConfigStore
from stores.sql.database import Database
from stores.sql.engine import migrate
from stores.sql.schema import a2a_push_configs
from stores.webhooks.sql import SqlWebhookStore
from stores.webhooks.tables import webhooks as webhook_rows
from tests.helpers import run_agentd

OLD, NEW = bytes(range(32)), bytes(range(100, 132))
OLD_TEXT, NEW_TEXT = (base64.b64encode(key).decode() for key in (OLD, NEW))
NOW = datetime(2026, 12, 7, 18, 0, tzinfo=UTC)


def _config(config_id: str, token: str, credentials: str) -> PushConfig:
    return PushConfig(
        "acme", "task_1", config_id, "http://127.0.0.1:9/in", token, "Bearer", credentials
    )


async def _rows(database: Database) -> dict[str, dict[str, Any]]:
    async with database.engine.connect() as connection:
        rows = (await connection.execute(select(a2a_push_configs))).mappings()
        return {row["config_id"]: dict(row) for row in rows}


@pytest.mark.postgres
async def test_reencrypt_moves_every_secret_to_the_new_key(tmp_path: Path, database: str) -> None:
    await migrate(database)
    db = Database.open(database)
    try:
        old = SqlPushConfigStore(db, KeyRing([OLD]))
        await old.put(_config("one", "tok-1", "cred-1"), NOW)
        await old.put(_config("two", "tok-2", ""), NOW)
        await old.put(_config("plain", "", ""), NOW)
        async with db.engine.begin() as connection:  # as a server before the key ring kept it
            query = update(a2a_push_configs).where(a2a_push_configs.c.config_id == "plain")
            await connection.execute(query.values(token="tok-3", auth_credentials="cred-3"))

        hooks, bound = SqlWebhookStore(db), secret_binding("acme", "wh_1")
        sealed = KeyRing([OLD]).seal(SECRET_PURPOSE, b"whsec-old", bound)
        hook = Webhook("wh_1", "acme", "http://127.0.0.1:9/hook", created_at=NOW, secret=sealed)
        await hooks.create(hook)

        env = {"AGENTD_DATABASE_URL": database, "AGENTD_KEYS": f"{NEW_TEXT},{OLD_TEXT}"}
        done = await asyncio.to_thread(run_agentd, tmp_path, "keys", "reencrypt", env=env)
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines() == [
            "push notification credentials: 5 moved",
            "webhook signing secrets: 1 moved",
            f"moved 6 values to key {key_id(NEW)}",
        ]
        async with db.engine.connect() as connection:
            [hook_secret] = (await connection.execute(select(webhook_rows.c.secret))).scalars()
        assert hook_secret.split(":")[2] == key_id(NEW)
        assert KeyRing([NEW]).open(SECRET_PURPOSE, hook_secret, bound) == b"whsec-old"
        rows = await _rows(db)
        sealed_with = {
            (name, column): row[column].split(":")[2]
            for name, row in rows.items()
            for column in ("token", "auth_credentials")
            if row[column]
        }
        assert len(sealed_with) == 5
        assert set(sealed_with.values()) == {key_id(NEW)}
        for secret in ("tok-1", "cred-1", "tok-2", "tok-3", "cred-3"):
            assert secret not in str(rows)
        new_only = SqlPushConfigStore(db, KeyRing([NEW]))  # the old key can be dropped now
        assert [
            (c.config_id, c.token, c.auth_credentials)
            for c in await new_only.of_task("acme", "task_1")
        ] == [("one", "tok-1", "cred-1"), ("plain", "tok-3", "cred-3"), ("two", "tok-2", "")]

        again = await asyncio.to_thread(run_agentd, tmp_path, "keys", "reencrypt", env=env)
        assert again.returncode == 0, again.stderr
        assert again.stdout.splitlines()[-1] == f"moved 0 values to key {key_id(NEW)}"
    finally:
        await db.close()


def test_keys_new_prints_a_fresh_key(capsys: pytest.CaptureFixture[str]) -> None:
    made = []
    for _ in range(2):
        assert main(["keys", "new"]) == 0
        [line] = capsys.readouterr().out.splitlines()
        made.append(line)
    assert made[0] != made[1]
    assert all(len(parse_key(key)) == 32 for key in made)
    assert KeyRing.parse(made).present


def test_reencrypt_without_a_key_or_with_a_bad_one_stops_at_once(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("AGENTD_DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'agentd.db'}")
    monkeypatch.delenv("AGENTD_KEYS", raising=False)
    assert main(["keys", "reencrypt"]) == 2
    assert "AGENTD_KEYS is not set" in capsys.readouterr().err
    bad = "not-a-key-but-secret-text"
    monkeypatch.setenv("AGENTD_KEYS", f"{NEW_TEXT},{bad}")
    assert main(["keys", "reencrypt"]) == 2
    said = capsys.readouterr()
    assert said.err.strip() == (
        "agentd: invalid setting AGENTD_KEYS: Value error, a key of AGENTD_KEYS is not base64"
    )
    assert bad not in said.err + said.out
    assert NEW_TEXT not in said.err + said.out
    assert not (tmp_path / "agentd.db").exists()  # nothing was opened
