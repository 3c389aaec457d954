"""`agentd serve` on a new embedded database: the migration runs in a child process.

Alembic, its templates and the migration scripts cost a serving process about 10 MB
that it would keep for its whole life, while a first start needs them once. So when the
SQLite database is not at the newest revision, `agentd serve` starts a child process
that runs `stores.sql.engine.migrate_sync` (what `agentd migrate` runs) before it imports
the server, and waits for it before opening the stores (the two overlap: the child
migrates while the parent imports). The parent's own
migration step then finds the database current and never imports Alembic.

A PostgreSQL database is migrated before serving by `agentd migrate` (the Kubernetes
init container and upgrade Job); `serve` still checks it and migrates in-process when it
must. A child that fails leaves the parent's in-process migration to try again and say
why in the words it always used.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path
from types import FrameType

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from stores.sql.engine import known_head

URL_VARIABLE = "AGENTD_MIGRATE_URL"
"""How the child is told the database's URL (never on its command line)."""
WAIT_SECONDS = 300.0
"""How long `serve` waits for the child's migration (a bound, never reached in practice)."""


def _sqlite_file(url: str) -> Path | None:
    """The file of a SQLite URL (None for another backend or an in-memory database)."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        return None
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database)


def _current(path: Path) -> bool:
    """Whether the SQLite file exists at the newest revision (read with the stdlib alone)."""
    head = known_head()
    if head is None or not path.is_file():
        return False
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1.0)) as db:
            rows = db.execute("SELECT version_num FROM alembic_version").fetchall()
    except sqlite3.Error:
        return False
    return [row[0] for row in rows] == [head]


def start(url: str) -> subprocess.Popen[bytes] | None:
    """A child process migrating the SQLite database at `url`, or None when there is
    nothing for one to do (another backend, or the database is current)."""
    path = _sqlite_file(url)
    if path is None or _current(path):
        return None
    program = f"import os, stores.sql.engine as e; e.migrate_sync(os.environ[{URL_VARIABLE!r}])"
    return subprocess.Popen(
        [sys.executable, "-c", program],
        env={**os.environ, URL_VARIABLE: url},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def finish(child: subprocess.Popen[bytes]) -> bool:
    """Wait for the child's migration; False when a SIGTERM or SIGINT came meanwhile
    (the child is stopped and `serve` should return as a server stopped before it served
    does). A failed child is not an error here: the in-process migration says why."""
    stopped: list[int] = []

    def on_signal(number: int, frame: FrameType | None) -> None:
        stopped.append(number)
        child.terminate()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        try:
            child.wait(WAIT_SECONDS)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    return not stopped
