"""`agentd serve` migrates a new embedded database in a child process
(server/commands/migrate_apart.py): which databases get one, and a stop while it runs."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
from contextlib import closing
from pathlib import Path

from server.commands import migrate_apart
from stores.sql.engine import known_head


def _url(path: Path) -> str:
    return f"sqlite+aiosqlite:///{path}"


def test_a_new_sqlite_database_is_migrated_by_the_child(tmp_path: Path) -> None:
    database = tmp_path / "new" / "agentd.db"
    child = migrate_apart.start(_url(database))
    assert child is not None
    assert migrate_apart.finish(child)
    assert child.returncode == 0
    with closing(sqlite3.connect(database)) as db:
        revisions = [row[0] for row in db.execute("SELECT version_num FROM alembic_version")]
    assert revisions == [known_head()]
    assert migrate_apart.start(_url(database)) is None  # current now: no child


def test_other_databases_get_no_child(tmp_path: Path) -> None:
    assert migrate_apart.start("postgresql+asyncpg://agentd@127.0.0.1:5432/agentd") is None
    assert migrate_apart.start("sqlite+aiosqlite://") is None
    assert migrate_apart.start("sqlite+aiosqlite:///:memory:") is None
    assert migrate_apart.start("not a url") is None


def test_a_database_at_an_older_revision_gets_a_child(tmp_path: Path) -> None:
    database = tmp_path / "agentd.db"
    with closing(sqlite3.connect(database)) as db:
        db.execute("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)")
        db.execute("INSERT INTO alembic_version VALUES ('0001')")
        db.commit()
    child = migrate_apart.start(_url(database))
    assert child is not None
    child.kill()
    child.wait()


def test_a_sigterm_while_the_child_migrates_stops_it_and_says_so() -> None:
    before = signal.getsignal(signal.SIGTERM)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGTERM))
    timer.start()
    try:
        assert migrate_apart.finish(sleeper) is False
    finally:
        timer.cancel()
        sleeper.kill()
        sleeper.wait()
    assert sleeper.returncode == -signal.SIGTERM
    assert signal.getsignal(signal.SIGTERM) == before  # the handler is given back
