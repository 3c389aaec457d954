"""Start-up: how long `agentd serve` takes to answer health SERVING, and its memory then.

Each run starts a new process and asks the gRPC health service `Check` every few
milliseconds (a new channel each time, so no reconnect back-off hides anything) until
it answers SERVING; the time from starting the process to that answer is the start-up.
The baseline is a bare grpc.aio server with the health service, started the same way
(the same interpreter, a new process, the same loop); the ratio of the two medians is
what agentd adds. Idle RSS is the process's resident memory (VmRSS) read right after
SERVING, and again a moment later, once what loads after SERVING has loaded.

agentd runs on its embedded defaults (SQLite, no Redis, in a folder of its own) with the
tokenizer ranks when `make` has put them in var/tiktoken (as the image bakes them in):
a first start (a new database: migrations, the development key) and restarts on it.
Runs alternate between agentd and the baseline so that both see the same machine load;
every wait is bounded in time.
"""

from __future__ import annotations

import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

ROOT = Path(__file__).resolve().parent.parent
RUNS = int(os.environ.get("BENCH_STARTUP_RUNS", "5"))
WAIT_SECONDS = 60.0
SETTLE_SECONDS = 2.0
TARGET_SECONDS = 1.5
TARGET_RSS_MB = 100.0

BARE = """
import asyncio, signal, sys
import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer

async def main() -> None:
    server = grpc.aio.server()
    health = HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    server.add_insecure_port(sys.argv[1])
    await server.start()
    await health.set("", health_pb2.HealthCheckResponse.SERVING)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    await server.stop(1)

asyncio.run(main())
"""


@dataclass(frozen=True, slots=True)
class Start:
    seconds: float
    cpu_seconds: float
    """CPU time (user + system, every thread) the process spent up to SERVING: what a
    start costs with the machine to itself, however busy it is while measured."""
    rss_mb: float
    """VmRSS right after the first SERVING answer."""
    settled_rss_mb: float
    """VmRSS SETTLE_SECONDS later."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def serving(address: str) -> bool:
    with grpc.insecure_channel(address) as channel:
        try:
            answer = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(), timeout=0.5
            )
        except grpc.RpcError:
            return False
    return bool(answer.status == health_pb2.HealthCheckResponse.SERVING)


def measure(argv: Sequence[str], address: str, env: dict[str, str], cwd: Path) -> Start:
    """Start `argv`, wait for SERVING on `address`, read its memory, stop it (SIGTERM)."""
    with tempfile.TemporaryFile() as errors:  # a file, not a pipe: a chatty start never blocks
        started = time.perf_counter()
        process = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=errors)
        try:
            while not serving(address):
                if process.poll() is not None:
                    errors.seek(0)
                    error = errors.read().decode(errors="replace")
                    raise RuntimeError(f"{argv[0]} exited with {process.returncode}: {error}")
                if time.perf_counter() - started > WAIT_SECONDS:
                    raise RuntimeError(f"{argv[0]} not SERVING within {WAIT_SECONDS} s")
                time.sleep(0.005)
            seconds = time.perf_counter() - started
            cpu, first = cpu_seconds(process.pid), rss_mb(process.pid)
            time.sleep(SETTLE_SECONDS)
            return Start(seconds, cpu, first, rss_mb(process.pid))
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def agentd_env(port: int) -> dict[str, str]:
    """The embedded defaults, with a free gRPC port and the metrics on any free port."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTD_")}
    env.update(
        AGENTD_ADDRESS=f"127.0.0.1:{port}",
        AGENTD_METRICS_ADDRESS="127.0.0.1:0",
        AGENTD_TOKENIZER_DIR=str(ROOT / "var" / "tiktoken"),
    )
    return env


def agentd_argv() -> list[str]:
    script = Path(sys.executable).parent / "agentd"
    return (
        [str(script), "serve"]
        if script.exists()
        else [sys.executable, "-m", "server.commands.cli", "serve"]
    )


def _median(starts: Sequence[Start]) -> Start:
    return Start(
        statistics.median(s.seconds for s in starts),
        statistics.median(s.cpu_seconds for s in starts),
        statistics.median(s.rss_mb for s in starts),
        statistics.median(s.settled_rss_mb for s in starts),
    )


def on_a_free_port(start: Callable[[int], Start], tries: int = 3) -> Start:
    """`start(port)` on a port free a moment ago; again on another when something took it
    meanwhile (a port picked this way is an ephemeral one, which any outgoing connection
    of the machine may be given before the server binds it)."""
    for attempt in range(tries):
        try:
            return start(free_port())
        except RuntimeError as failed:
            if "Address already in use" not in str(failed) or attempt == tries - 1:
                raise
    raise AssertionError("unreachable")


def _bare(scratch: Path) -> Callable[[int], Start]:
    def start(port: int) -> Start:
        address = f"127.0.0.1:{port}"
        return measure([sys.executable, "-c", BARE, address], address, dict(os.environ), scratch)

    return start


def _agentd(home: Path) -> Callable[[int], Start]:
    def start(port: int) -> Start:
        return measure(agentd_argv(), f"127.0.0.1:{port}", agentd_env(port), home)

    return start


def run(runs: int = RUNS) -> dict[str, Start]:
    """The median start of each: the bare server, agentd's first start, agentd's restart."""
    bare: list[Start] = []
    first: list[Start] = []
    again: list[Start] = []
    with tempfile.TemporaryDirectory(prefix="agentd-startup-") as scratch:
        for n in range(runs):
            bare.append(on_a_free_port(_bare(Path(scratch))))
            home = Path(scratch) / f"run{n}"
            home.mkdir()
            for into in (first, again):
                into.append(on_a_free_port(_agentd(home)))
    return {"bare": _median(bare), "first": _median(first), "restart": _median(again)}


def _verdict(seconds: float) -> str:
    return "met" if seconds <= TARGET_SECONDS else "MISSED"


def main() -> None:
    ranks = (ROOT / "var" / "tiktoken" / ".verified-stamp").exists()
    print(
        f"Start-up to health SERVING, median of {RUNS} runs (agentd serve, embedded "
        f"defaults, tokenizer ranks {'loaded' if ranks else 'absent: estimates'})"
    )
    medians = run()
    bare = medians["bare"]
    print(
        f"  bare grpc.aio + health:      {bare.seconds:6.3f} s (CPU {bare.cpu_seconds:5.2f} s)"
        f"   RSS {bare.rss_mb:6.1f} MB"
    )
    for name, label in (("first", "first start (new DB)"), ("restart", "restart")):
        got = medians[name]
        light = max(got.rss_mb, got.settled_rss_mb) <= TARGET_RSS_MB
        print(
            f"  agentd {label:<21} {got.seconds:6.3f} s (CPU {got.cpu_seconds:5.2f} s)"
            f"  {got.seconds / bare.seconds:4.1f}x bare ({got.cpu_seconds / bare.cpu_seconds:4.1f}x"
            f" in CPU)   RSS {got.rss_mb:6.1f} MB at SERVING, {got.settled_rss_mb:6.1f} MB"
            f" {SETTLE_SECONDS:.0f} s later"
        )
        print(
            f"      target <= {TARGET_SECONDS} s: {_verdict(got.seconds)} in wall time,"
            f" {_verdict(got.cpu_seconds)} in CPU time;"
            f" <= {TARGET_RSS_MB:.0f} MB: {'met' if light else 'MISSED'}"
        )


if __name__ == "__main__":
    main()
