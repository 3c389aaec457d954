"""The official A2A client's own virtual environment: var/a2a-client/<pin digest>/, made
once and kept (keyed on the pin, so a new pin makes a new one). The client runs there in a
process of its own: the SDK's generated `lf.a2a.v1` must not meet another generation of
that package in one process, and the test must drive agentd the way an outside client
does."""

from __future__ import annotations

import fcntl
import hashlib
import subprocess
import sys
from pathlib import Path

PIN = "a2a-sdk[grpc,http-server]==1.3.0"
"""The official SDK, as pinned for the tests (its gRPC and JSON-RPC clients)."""
ROOT = Path(__file__).resolve().parents[3]
SCRIPT = Path(__file__).with_name("official_client.py")


def client_python() -> Path:
    """The client environment's interpreter, made first if need be (minutes, once)."""
    home = ROOT / "var" / "a2a-client" / hashlib.sha256(PIN.encode()).hexdigest()[:12]
    python = home / "bin" / "python"
    stamp = home / ".installed"
    home.parent.mkdir(parents=True, exist_ok=True)
    with (home.parent / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one maker at a time; the others wait and reuse it
        if stamp.exists() and stamp.read_text() == PIN:
            return python
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(home)], check=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", PIN],
            check=True,
            timeout=900,
            capture_output=True,
        )
        stamp.write_text(PIN)
    return python
