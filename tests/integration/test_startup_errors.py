"""A server that cannot start as configured says why in one line and exits with status 2."""

from __future__ import annotations

import socket
from pathlib import Path

from tests.helpers import server_process


def test_a_metrics_port_in_use_is_one_clear_line_and_exit_2(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {"AGENTD_METRICS_ADDRESS": f"127.0.0.1:{port}"}
        with server_process(tmp_path, env, listening=False) as done:
            stderr = done.log()
    assert done.wait(timeout=0) == 2
    assert "Traceback" not in stderr
    lines = [line for line in stderr.splitlines() if "AGENTD_METRICS_ADDRESS" in line]
    assert len(lines) == 1
    assert f"127.0.0.1:{port}" in lines[0]
    assert "agentd listening" not in done.printed


def test_an_invalid_setting_names_the_variable_and_exits_2(tmp_path: Path) -> None:
    with server_process(tmp_path, {"AGENTD_MAX_RUNNING_TASKS": "many"}, listening=False) as done:
        stderr = done.log()
    assert done.wait(timeout=0) == 2
    assert "Traceback" not in stderr
    assert "AGENTD_MAX_RUNNING_TASKS" in stderr
