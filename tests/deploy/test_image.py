"""The container image, built here (`scripts/image.py` on the Debian bookworm base) and
started from its entrypoint with a read-only root file system: it migrates, creates a
key with its own CLI, serves health and CallTool to this machine, and drains on SIGTERM.

Marked `image` (buildah and mmdebstrap: skipped loudly without them, never in .ci/run)."""

from __future__ import annotations

import json
import re
import signal
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from agentd.v1 import agent_service_pb2 as pb
from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from agentd_client.requests import to_struct
from tests.deploy.rootfs import STATE, Image, Lines, build, mounted, state_volume

pytestmark = [pytest.mark.image, pytest.mark.timeout(1500)]

LOOPBACK = {"AGENTD_ADDRESS": "127.0.0.1:0", "AGENTD_METRICS_ADDRESS": "127.0.0.1:0"}
"""This machine's network is the image's here: listen on loopback, on free ports."""


@pytest.fixture(scope="module")
def image() -> Iterator[Image]:
    print(build().strip().splitlines()[-1])  # the image's size and build time (pytest -s)
    with mounted() as mounted_image:
        yield mounted_image


def test_the_image_runs_agentd_as_its_own_user_listening_everywhere(image: Image) -> None:
    config = image.config
    assert config["User"] == "10001:10001"
    assert set(config["ExposedPorts"]) == {"50051/tcp", "9464/tcp"}  # type: ignore[call-overload]
    assert STATE in config["Volumes"]  # type: ignore[operator]
    assert image.command() == ["/opt/agentd/venv/bin/agentd", "serve"]
    env = image.env
    assert env["AGENTD_ADDRESS"] == "0.0.0.0:50051"
    assert env["AGENTD_METRICS_ADDRESS"] == "0.0.0.0:9464"
    assert env["AGENTD_DEVELOPMENT_KEY"] == "false"
    assert env["AGENTD_DATABASE_URL"] == f"sqlite+aiosqlite:///{STATE}/agentd.db"
    ranks = image.root / env["AGENTD_TOKENIZER_DIR"].lstrip("/")
    assert len([p for p in ranks.iterdir() if re.fullmatch(r"[0-9a-f]{40}", p.name)]) == 2
    installed = {
        path.name.split("-")[0].lower()
        for path in (image.root / "opt/agentd/venv/lib").glob("python3*/site-packages/*")
        if path.name.endswith(".dist-info")
    }
    assert "grpcio" in installed
    assert "agentd" in installed
    dev_only = {"pytest", "mypy", "ruff", "grpcio_tools", "mypy_protobuf", "pip", "setuptools"}
    assert not installed & dev_only


def _cli(image: Image, state: Path, *args: str) -> str:
    done = image.run(state, image.command(*args), LOOPBACK)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_image_serves_from_a_read_only_root_and_drains_on_sigterm(
    image: Image, tmp_path: Path
) -> None:
    state = state_volume(tmp_path / "state", str(image.config["User"]))
    _cli(image, state, "migrate")  # what the initContainer and the upgrade Job run
    _cli(image, state, "grants", "grant", "--tenant", "acme", "--role", "admin",
         "--tool", "calculator", "--level", "read")  # fmt: skip
    server = image.popen(state, image.command(), LOOPBACK)
    out, err = Lines(server.stdout), Lines(server.stderr)
    try:
        address = out.wait_for(r"agentd listening on (\S+)", 60).group(1)
        metrics = err.wait_for(r'"metrics": "(http://[^"]+)"', 5).group(1)
        err.wait_for("token counts: exact", 5)  # the ranks baked into the image
        err.wait_for("no API key exists yet", 5)  # a fresh database, and no development key
        key = _cli(image, state, "keys", "create", "--tenant", "acme", "--principal", "gw",
                   "--role", "admin").strip().splitlines()[-1]  # fmt: skip
        with grpc.insecure_channel(address) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            answer = health.Check(health_pb2.HealthCheckRequest(), timeout=10)
            assert answer.status == health_pb2.HealthCheckResponse.SERVING
            request = pb.CallToolRequest(
                tool_name="calculator", arguments=to_struct({"expression": "(17 + 25) * 3 / 7"})
            )
            result = pb_grpc.AgentServiceStub(channel).CallTool(
                request, metadata=(("authorization", f"Bearer {key}"),), timeout=10
            )
            assert result.text == "18"
        with urllib.request.urlopen(metrics, timeout=10) as response:
            counted = b'agentd_rpcs_total{code="OK",method="/agentd.v1.AgentService/CallTool"}'
            assert counted in response.read()
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=60) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(timeout=10)
        printed, errors = out.rest(), err.rest()
        for stream in (server.stdout, server.stderr):
            if stream is not None:
                stream.close()
    logged = [json.loads(line) for line in errors.splitlines() if line.startswith("{")]
    assert "AGENTD_API_KEY" not in printed  # no development key, ever
    events = [entry["event"] for entry in logged]
    assert "draining" in events
    assert events[-1] == "stopped"
    assert (state / "agentd.db").is_file()  # its state is in the volume, nowhere else
    keys = _cli(image, state, "--json", "keys", "list").splitlines()
    assert [json.loads(line)["principal"] for line in keys] == ["gw"]
