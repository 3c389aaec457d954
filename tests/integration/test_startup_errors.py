"""A server that cannot start as configured says why in one line and exits with status 2."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from tests.helpers import run_agentd, server_process


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


@pytest.mark.parametrize(
    ("setting", "env", "options"),
    [
        ("AGENTD_ADDRESS", {}, ()),
        ("AGENTD_ADDRESS", {}, ("--demo",)),
        ("AGENTD_HTTP_ADDRESS", {"AGENTD_A2A": "true"}, ()),
        ("AGENTD_A2A_HTTP_ADDRESS", {"AGENTD_A2A": "true"}, ()),
    ],
    ids=["grpc", "grpc-demo", "http", "a2a-http"],
)
def test_an_address_in_use_is_one_clear_line_and_exit_2(
    tmp_path: Path, setting: str, env: dict[str, str], options: tuple[str, ...]
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        address = f"127.0.0.1:{taken.getsockname()[1]}"
        with server_process(tmp_path, {**env, setting: address}, listening=False,
                            options=options) as done:  # fmt: skip
            stderr = done.log()
    assert done.wait(timeout=0) == 2, stderr
    assert "Traceback" not in stderr
    lines = [line for line in stderr.splitlines() if setting in line]
    http = "HTTP" in setting  # the former name is said beside the current one
    named = "AGENTD_HTTP_ADDRESS, formerly AGENTD_A2A_HTTP_ADDRESS" if http else setting
    assert lines == [
        f"agentd: cannot {'serve HTTP on' if http else 'listen on'} {address} "
        f"({named}): Address already in use; choose another address (port 0: any free "
        "port)" + (", or empty to serve gRPC alone" if http else "")
    ], stderr
    assert "agentd listening" not in done.printed


def test_an_invalid_setting_names_the_variable_and_exits_2(tmp_path: Path) -> None:
    with server_process(tmp_path, {"AGENTD_MAX_RUNNING_TASKS": "many"}, listening=False) as done:
        stderr = done.log()
    assert done.wait(timeout=0) == 2
    assert "Traceback" not in stderr
    assert "AGENTD_MAX_RUNNING_TASKS" in stderr


def test_a_malformed_approval_rule_stops_start_up_naming_the_problem(tmp_path: Path) -> None:
    rule = '{"deadline_seconds": 60, "on_deadline": "escalate", "escalate_to_roles": ["ops"]}'
    with server_process(tmp_path, {"AGENTD_APPROVAL_RULE": rule}, listening=False) as done:
        stderr = done.log()
    assert done.wait(timeout=0) == 2
    assert "Traceback" not in stderr
    assert "AGENTD_APPROVAL_RULE" in stderr
    assert "escalation_deadline_seconds is needed to escalate" in stderr


PASSWORD = "s3cret-pw"
"""Given in the PostgreSQL URLs below (trust auth ignores it): it must never be printed."""
COMMANDS = {
    "serve": ("serve",),
    "migrate": ("migrate",),
    "keys list": ("keys", "list"),
    "keys create": ("keys", "create", "--tenant", "acme", "--principal", "bot"),
    "grants list": ("grants", "list"),
    "grants grant": (
        "grants", "grant", "--tenant", "acme", "--role", "ops", "--tool", "*", "--level", "read"
    ),
}  # fmt: skip


def _databases(tmp_path: Path) -> dict[str, tuple[str, str]]:
    """Databases that cannot be opened: their URL, and what the line must say of each."""
    (tmp_path / "a-file").write_text("a file where a folder should be")
    return {
        "sqlite-folder": (
            f"sqlite+aiosqlite:///{tmp_path / 'a-file' / 'agentd.db'}",
            f"cannot make the folder {tmp_path / 'a-file'}",
        ),
        "postgres-refused": (
            # Nothing listens on port 1 of loopback: every connection is refused.
            f"postgresql+asyncpg://postgres:{PASSWORD}@127.0.0.1:1/agentd",
            "Connection refused",
        ),
        "postgres-missing": (
            f"postgresql+asyncpg://postgres:{PASSWORD}@127.0.0.1:5432/agentd_no_such_database",
            'database "agentd_no_such_database" does not exist',
        ),
    }


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize(
    "database",
    [
        "sqlite-folder",
        "postgres-refused",
        pytest.param("postgres-missing", marks=pytest.mark.postgres),
    ],
)
def test_a_database_that_cannot_be_opened_is_one_line_naming_it_and_exit_2(
    tmp_path: Path, command: str, database: str
) -> None:
    url, why = _databases(tmp_path)[database]
    done = run_agentd(tmp_path, *COMMANDS[command], env={"AGENTD_DATABASE_URL": url})
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1, done.stderr  # one line, no traceback
    line = done.stderr.strip()
    assert line.startswith("agentd: cannot open the database at ")
    assert url.replace(PASSWORD, "***") in line  # the URL, its password hidden
    assert PASSWORD not in line
    assert "(AGENTD_DATABASE_URL)" in line
    assert why in line
    assert "agentd listening" not in done.stdout


def test_a_database_url_given_on_the_command_line_is_named_as_such(tmp_path: Path) -> None:
    url = "postgresql+asyncpg://postgres@127.0.0.1:1/agentd"
    done = run_agentd(tmp_path, "migrate", "--database-url", url)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"agentd: cannot open the database at {url} (--database-url): Connection refused"
    )


@pytest.mark.redis
def test_a_redis_that_refuses_agentd_is_one_line_and_exit_2(tmp_path: Path) -> None:
    url = "redis://:pw@127.0.0.1:6379/99"  # a database number Redis does not have
    with server_process(tmp_path, {"AGENTD_REDIS_URL": url}, listening=False) as done:
        stderr = done.log()
    assert done.wait(timeout=0) == 2
    assert stderr.strip() == (
        "agentd: cannot open Redis at redis://:***@127.0.0.1:6379/99 (AGENTD_REDIS_URL): "
        "DB index is out of range"
    )


def test_a_redis_out_of_reach_at_start_is_said_once_and_the_server_runs(tmp_path: Path) -> None:
    # Calls answer UNAVAILABLE until Redis is back (test_store_faults); start-up says why.
    with server_process(tmp_path, {"AGENTD_REDIS_URL": "redis://127.0.0.1:1/0"}) as served:
        served.terminate()
        served.wait(timeout=30)
        said = [json.loads(line) for line in served.log().splitlines() if line.startswith("{")]
    warned = [line for line in said if line["event"].startswith("Redis is out of reach")]
    assert [line["redis"] for line in warned] == ["redis://127.0.0.1:1/0"]
