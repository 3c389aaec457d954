"""A server that cannot start as configured says why in one line and exits with status 2."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

from tests.helpers import ROOT


def _serve(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    inherited = {k: v for k, v in os.environ.items() if not k.startswith(("AGENTD_", "OPENAI_"))}
    return subprocess.run(
        [sys.executable, "-m", "server.cli", "serve"],
        cwd=ROOT,
        env={
            **inherited,
            "AGENTD_ADDRESS": "127.0.0.1:0",
            "AGENTD_WORKSPACE_DIR": str(tmp_path / "workspace"),
            "AGENTD_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'agentd.db'}",
            "AGENTD_AUTH": "off",
            **env,
        },
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_metrics_port_in_use_is_one_clear_line_and_exit_2(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = _serve(tmp_path, AGENTD_METRICS_ADDRESS=f"127.0.0.1:{port}")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if "AGENTD_METRICS_ADDRESS" in line]
    assert len(lines) == 1
    assert f"127.0.0.1:{port}" in lines[0]
    assert "agentd listening" not in done.stdout


def test_an_invalid_setting_names_the_variable_and_exits_2(tmp_path: Path) -> None:
    done = _serve(tmp_path, AGENTD_MAX_RUNNING_TASKS="many")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "AGENTD_MAX_RUNNING_TASKS" in done.stderr
