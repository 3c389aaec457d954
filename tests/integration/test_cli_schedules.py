"""`agentd schedules` against `agentd serve` with authentication on: an operator creates
an interval schedule, its runs start tasks as that operator; a user without roles may
read it but not change it; once the operator's key is revoked the runs are refused with
the reason, and three refusals in a row pause the schedule. Update, trigger and delete
through the same commands."""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
from pathlib import Path

from agent.llm.fakes.server import FakeOpenAIServer
from records.keys import new_key
from stores.api_keys.sql import SqlKeyStore
from stores.sql.database import Database
from stores.sql.engine import migrate
from tests.helpers import AGENTD_COMMAND, ROOT, ServerProcess, llm_env, server_process

REPLY = {"text": "done", "repeat": -1}


async def make_keys(folder: Path) -> tuple[dict[str, str], dict[str, str]]:
    """The plaintext and the key id of acme's operator (ops) and of a user (alice)."""
    url = f"sqlite+aiosqlite:///{folder / 'agentd.db'}"
    folder.mkdir(parents=True, exist_ok=True)
    await migrate(url)
    db = Database.open(url)
    plain, ids = {}, {}
    try:
        for principal, roles in (("ops", ("operator",)), ("alice", ())):
            key, plain[principal] = new_key("acme", principal, roles)
            ids[principal] = key.key_id
            await SqlKeyStore(db).add(key)
    finally:
        await db.close()
    return plain, ids


async def revoke(folder: Path, key_id: str) -> None:
    db = Database.open(f"sqlite+aiosqlite:///{folder / 'agentd.db'}")
    try:
        assert await SqlKeyStore(db).revoke(key_id)
    finally:
        await db.close()


async def agentd(server: ServerProcess, key: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "AGENTD_ADDRESS": server.address, "AGENTD_API_KEY": key}
    pipe = asyncio.subprocess.PIPE
    process = await asyncio.create_subprocess_exec(
        *AGENTD_COMMAND, *args, cwd=ROOT, env=env, stdout=pipe, stderr=pipe
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return subprocess.CompletedProcess(args, process.returncode, out.decode(), err.decode())


async def runs_of(server: ServerProcess, key: str, schedule_id: str) -> list[dict[str, str]]:
    ran = await agentd(server, key, "schedules", "runs", schedule_id)
    assert ran.returncode == 0, ran.stderr
    _header, *rows = ran.stdout.splitlines()
    return [{"state": row.split()[1], "line": row} for row in rows if row.strip()]


async def test_schedules_from_the_command_line_and_a_revoked_key_pauses(
    tmp_path: Path,
) -> None:
    plain, ids = await make_keys(tmp_path)
    async with FakeOpenAIServer([REPLY]) as llm:
        env = llm_env(
            llm.base_url,
            AGENTD_AUTH="on",
            AGENTD_AUTH_CACHE_SECONDS="0",
            AGENTD_SCHEDULE_MIN_INTERVAL_SECONDS="1",
            AGENTD_SCHEDULE_TICK_SECONDS="0.2",
        )
        with server_process(tmp_path, env) as server:
            ops, alice = plain["ops"], plain["alice"]
            create = ("schedules", "create", "--every", "1", "--goal", "tick", "--json")
            refused = await agentd(server, alice, *create)
            assert refused.returncode != 0
            assert "managing schedules needs one of the roles" in refused.stderr
            made = await agentd(server, ops, *create, "--name", "ticker")
            assert made.returncode == 0, made.stderr
            schedule_id = json.loads(made.stdout)["id"]
            listed = await agentd(server, alice, "schedules", "list")
            assert schedule_id in listed.stdout
            assert "ticker" in listed.stdout

            deadline = time.monotonic() + 30
            while not any(r["state"] == "started" for r in await runs_of(server, ops, schedule_id)):
                assert time.monotonic() < deadline, "no run started"
                await asyncio.sleep(0.3)
            updated = await agentd(server, ops, "schedules", "update", schedule_id, "--name", "t2")
            assert updated.returncode == 0, updated.stderr

            await revoke(tmp_path, ids["ops"])
            deadline = time.monotonic() + 30
            while True:
                got = await agentd(server, alice, "schedules", "get", schedule_id, "--json")
                assert got.returncode == 0, got.stderr
                shown = json.loads(got.stdout)
                if shown["state"] == "SCHEDULE_STATE_PAUSED":
                    break
                assert time.monotonic() < deadline, "not paused"
                await asyncio.sleep(0.3)
            assert shown["display_name"] == "t2"
            assert shown["refusals"] == 3
            assert "API keys of tenant 'acme' were revoked" in shown["pause_reason"]
            runs = await runs_of(server, alice, schedule_id)
            assert [r["state"] for r in runs[:3]] == ["refused"] * 3
            assert all("API keys of tenant 'acme' were revoked" in r["line"] for r in runs[:3])
            assert "refused" not in [r["state"] for r in runs[3:]]
