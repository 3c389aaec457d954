"""Check (and, where this machine can, start) the Redis and PostgreSQL servers the suites use.

    python scripts/services.py ensure            # start what is down; report
    python scripts/services.py ensure --require  # ... and fail if one is still down (CI)
    python scripts/services.py report            # report only

Only 127.0.0.1 is ever contacted.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Service:
    name: str
    port: int
    marker: str
    start: list[str]

    def up(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
                if self.name == "Redis":
                    sock.sendall(b"PING\r\n")
                    return sock.recv(16).startswith(b"+PONG")
                return True
        except OSError:
            return False


def _pg_start() -> list[str]:
    versions = sorted(os.listdir("/etc/postgresql")) if os.path.isdir("/etc/postgresql") else []
    if not versions or not shutil.which("pg_ctlcluster"):
        return []
    return ["pg_ctlcluster", "--skip-systemctl-redirect", versions[-1], "main", "start"]


def _redis_start() -> list[str]:
    if not shutil.which("redis-server"):
        return []
    for folder in ("/var/lib/redis", "/var/log/redis"):
        os.makedirs(folder, exist_ok=True)
    return [
        "redis-server",
        *("--daemonize", "yes"),
        *("--bind", "127.0.0.1", "-::1"),
        *("--port", "6379"),
        *("--save", ""),
        *("--appendonly", "no"),
        *("--dir", "/var/lib/redis"),
        *("--logfile", "/var/log/redis/ci.log"),
    ]


SERVICES = [
    Service("Redis", 6379, "redis", _redis_start()),
    Service("PostgreSQL", 5432, "postgres", _pg_start()),
]


def ensure(service: Service) -> bool:
    if service.up():
        return True
    if not service.start:
        print(f"services: {service.name} is down and cannot be started here", file=sys.stderr)
        return False
    print(f"services: starting {service.name}: {' '.join(service.start)}", file=sys.stderr)
    subprocess.run(service.start, check=False, timeout=60)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if service.up():
            return True
        time.sleep(0.5)
    return False


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("action", choices=["ensure", "report"])
    parser.add_argument("--require", action="store_true", help="exit 1 if a service is down")
    args = parser.parse_args()
    down = []
    for service in SERVICES:
        ok = ensure(service) if args.action == "ensure" else service.up()
        print(f"services: {service.name} on 127.0.0.1:{service.port}: {'up' if ok else 'DOWN'}")
        if not ok:
            down.append(service)
    if down:
        bar = "!" * 72
        print(bar, file=sys.stderr)
        for service in down:
            print(
                f"!! {service.name} is not running: the test suites marked "
                f"'{service.marker}' cannot run on this machine.",
                file=sys.stderr,
            )
        print(bar, file=sys.stderr)
        return 1 if args.require else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
