"""The `agentd` CLI against a real server process."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import pytest

from tests.helpers import ROOT, ServerProcess, server_process


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with server_process(tmp_path_factory.mktemp("cli")) as process:
        yield process


def agentd(served: ServerProcess, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "clients.cli", "--address", served.address, *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        check=False,
    )


def test_tools_human_and_json(served: ServerProcess) -> None:
    out = agentd(served, "tools")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0].split()[:3] == ["calculator", "math", "none"]
    lines = agentd(served, "--json", "tools").stdout.splitlines()
    assert next(json.loads(line)["name"] for line in lines) == "calculator"


def test_call_tool(served: ServerProcess) -> None:
    out = agentd(served, "call-tool", "calculator", "--args", '{"expression": "1/4 + 1/4"}')
    assert (out.returncode, out.stdout.strip()) == (0, "0.5")
    out = agentd(served, "--json", "call-tool", "calculator", "--args", '{"expression": "2*3"}')
    assert json.loads(out.stdout)["result"]["value"] == 6


def test_call_tool_errors(served: ServerProcess) -> None:
    bad = agentd(served, "call-tool", "calculator", "--args", '{"nope": 1}')
    assert bad.returncode == 1
    assert "TOOL_ARGUMENTS_INVALID" in bad.stderr
    assert "arguments.expression: is required" in bad.stderr
    failed = agentd(served, "call-tool", "calculator", "--args", '{"expression": "1/0"}')
    assert failed.returncode == 1
    assert "division by zero" in failed.stderr
    garbage = agentd(served, "call-tool", "calculator", "--args", "{not json")
    assert garbage.returncode == 2
    assert "not valid JSON" in garbage.stderr


def test_task_and_exec(served: ServerProcess) -> None:
    out = agentd(served, "task", "task_missing")
    assert out.returncode == 1
    assert "NOT_FOUND TASK_NOT_FOUND" in out.stderr
    out = agentd(served, "exec", "what is 2+2", "--follow")
    assert out.returncode == 1
    assert "FAILED_PRECONDITION LLM_NOT_CONFIGURED" in out.stderr
    assert "AGENTD_LLM_MODEL" in out.stderr


def test_startup_says_which_settings_turn_the_engine_on(served: ServerProcess) -> None:
    log = served.log()
    assert "no language model configured" in log
    assert "AGENTD_LLM_MODEL" in log


def test_health(served: ServerProcess) -> None:
    out = agentd(served, "health")
    assert (out.returncode, out.stdout.strip()) == (0, "SERVING")


def test_unreachable_server_is_a_clear_error() -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "clients.cli",
            "--address",
            "127.0.0.1:1",
            "--timeout",
            "2",
            "health",
        ],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=ROOT,
        check=False,
    )
    assert out.returncode == 1
    assert "UNAVAILABLE" in out.stderr
