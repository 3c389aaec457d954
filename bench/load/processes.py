"""The processes a load scenario runs against: the fake model, `agentd serve` replicas,
and a recording HTTP server. Each is started here and stopped by its PID; loopback only."""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import signal
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager, suppress
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import redis.asyncio as redis

ROOT = Path(__file__).resolve().parents[2]
REDIS_URL = "redis://127.0.0.1:6379/0"
POSTGRES_ADMIN = "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"
LISTENING = re.compile(r"agentd listening on (\S+)")
MODEL = re.compile(r"fake model on (http://\S+)")


@dataclass
class Child:
    """A child process started by the load suite."""

    name: str
    process: subprocess.Popen[str]
    address: str
    log: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    def kill(self) -> None:
        """kill -9 (the crash of the kill scenario)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()
        if self.process.stdout is not None:
            self.process.stdout.close()


def _start(
    name: str,
    command: list[str],
    env: Mapping[str, str],
    log: Path,
    pattern: re.Pattern[str],
    cwd: Path = ROOT,
) -> Child:
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w") as sink:
        process = subprocess.Popen(
            command, cwd=cwd, env=dict(env), stdout=subprocess.PIPE, stderr=sink, text=True
        )
    assert process.stdout is not None
    for _ in range(200):  # bounded: a child that never says it listens is a failure
        line = process.stdout.readline()
        if not line:
            break
        found = pattern.search(line)
        if found:
            return Child(name, process, found.group(1), log)
    process.kill()
    process.wait(timeout=10)
    raise RuntimeError(f"{name} did not start; see {log}:\n{log.read_text()[-2000:]}")


def _environment(extra: Mapping[str, str]) -> dict[str, str]:
    inherited = {k: v for k, v in os.environ.items() if not k.startswith(("AGENTD_", "OPENAI_"))}
    return {**inherited, **extra}


def start_model(folder: Path, hold: float, post: str = "") -> Child:
    command = [sys.executable, "-m", "bench.load.fake_model", "--port", "0", "--hold", str(hold)]
    if post:
        command += ["--post", post]
    return _start("fake model", command, _environment({}), folder / "model.log", MODEL)


def start_server(name: str, folder: Path, settings: Mapping[str, str], root: Path = ROOT) -> Child:
    """`agentd serve` with the load suite's settings (auth and rate limits off); `root`,
    another checkout with its own `.venv`, serves that checkout's code instead."""
    env = _environment(
        {
            "AGENTD_ADDRESS": "127.0.0.1:0",
            "AGENTD_AUTH": "off",
            "AGENTD_RATE_LIMITS": "",
            "AGENTD_TENANT_RATE_LIMITS": "",
            "AGENTD_METRICS_ADDRESS": "",
            "AGENTD_TOOL_PERMISSION": "write",
            "AGENTD_LLM_MODEL": "fake",
            "AGENTD_LLM_API_KEY": "k",
            "AGENTD_LOG_LEVEL": "warning",
            "AGENTD_WORKSPACE_DIR": str(folder / "workspace"),
            "AGENTD_DATABASE_URL": f"sqlite+aiosqlite:///{folder / 'agentd.db'}",
            **settings,
        }
    )
    python = sys.executable if root == ROOT else str(root / ".venv" / "bin" / "python")
    command = [python, "-m", "server.commands.cli", "serve"]
    return _start(name, command, env, folder / f"{name}.log", LISTENING, cwd=root)


@dataclass
class Recorder:
    """POST bodies received, counted (the kill scenario's non-idempotent side effect)."""

    url: str
    bodies: Counter[str] = field(default_factory=Counter)


@contextmanager
def recording_server() -> Iterator[Recorder]:
    received: Counter[str] = Counter()
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            return

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length).decode(errors="replace")
            with lock:
                received[body] += 1
            self.send_response(200)
            self.send_header("Content-Length", "8")
            self.end_headers()
            self.wfile.write(b"recorded")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Recorder(f"http://127.0.0.1:{server.server_address[1]}/record", received)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@asynccontextmanager
async def shared_stores() -> AsyncIterator[dict[str, str]]:
    """Settings for Redis + a new PostgreSQL database (dropped after), keys under a prefix
    of this run (removed after)."""
    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    name = f"agentd_load_{secrets.token_hex(5)}"
    prefix = f"agentd-load:{secrets.token_hex(5)}:"
    admin = create_async_engine(POSTGRES_ADMIN, isolation_level="AUTOCOMMIT")
    try:
        async with admin.connect() as connection:
            await connection.execute(text(f'CREATE DATABASE "{name}"'))
        try:
            yield {
                "AGENTD_REDIS_URL": REDIS_URL,
                "AGENTD_REDIS_PREFIX": prefix,
                "AGENTD_DATABASE_URL": f"postgresql+asyncpg://postgres@127.0.0.1:5432/{name}",
            }
        finally:
            async with admin.connect() as connection:
                await connection.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))
            client = redis.Redis.from_url(REDIS_URL)
            keys = [key async for key in client.scan_iter(match=f"{prefix}*", count=1000)]
            for start in range(0, len(keys), 500):
                await client.delete(*keys[start : start + 500])
            await client.aclose()
    finally:
        await admin.dispose()


def rss_kib(pid: int) -> int:
    """Resident memory of a process (KiB); 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib_self() -> int:
    return rss_kib(os.getpid())


def redis_connections(pid: int, port: int = 6379) -> int:
    """Established TCP connections from process `pid` to `port` on loopback."""
    try:
        inodes = set()
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    except OSError:
        return 0
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            remote_port = int(parts[2].rsplit(":", 1)[1], 16)
            if parts[3] == "01" and remote_port == port and parts[9] in inodes:
                count += 1
    return count


async def sample(pids: list[int], stop: asyncio.Event, every: float = 0.1) -> tuple[int, int]:
    """Peak total RSS (KiB) and peak Redis connections of `pids` until `stop` is set."""
    peak_rss = peak_redis = 0
    while not stop.is_set():
        peak_rss = max(peak_rss, sum(rss_kib(p) for p in pids))
        peak_redis = max(peak_redis, sum(redis_connections(p) for p in pids))
        with suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), every)
    return peak_rss, peak_redis
