"""The Python client is a distribution of its own (clients/python, agentd-client): its
wheel holds the client and the generated messages only, depends on grpcio and protobuf
only, and works against a real server with none of the server's packages importable."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

from tests.helpers import ROOT, server_process

SERVER_PACKAGES = ("core", "agent", "server", "tools", "db", "auth", "audit", "clients")
ALLOWED_REQUIREMENTS = {"grpcio", "grpcio-health-checking", "protobuf", "googleapis-common-protos"}

CHECK = """
import asyncio, importlib.abc, json, sys

class NoServer(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in SERVER_PACKAGES:
            raise ImportError(f"the client imported {name}")
        return None

sys.meta_path.insert(0, NoServer())
from agentd_client import AgentClient, errors
import agentd_client

async def main():
    async with AgentClient(ADDRESS, timeout=10) as client:
        tools = await client.list_tools()
        try:
            await client.get_task("task_000000000000000000000000")
        except errors.TaskNotFoundError as missing:
            reason = missing.reason
        print(json.dumps({"file": agentd_client.__file__, "tools": len(tools),
                          "health": await client.health(), "reason": reason}))

asyncio.run(main())
"""


def _wheel(out: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "-w", str(out), str(ROOT / "clients" / "python")],
        check=True, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    (wheel,) = out.glob("agentd_client-*.whl")
    return wheel


def test_the_client_wheel_holds_the_client_and_the_contract_only(tmp_path: Path) -> None:
    wheel = _wheel(tmp_path / "dist")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata_name = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = Parser().parsestr(archive.read(metadata_name).decode())
    top = {name.split("/")[0] for name in names}
    assert top == {"agentd_client", "agentd", wheel.name.split("-py")[0] + ".dist-info"}
    assert "agentd/v1/agent_service_pb2.py" in names
    assert "agentd_client/py.typed" in names
    requirements = {r.split(">")[0].split("<")[0].split("=")[0].strip()
                    for r in metadata.get_all("Requires-Dist") or []}  # fmt: skip
    assert requirements == ALLOWED_REQUIREMENTS


def test_the_installed_client_talks_to_agentd_without_the_server_code(tmp_path: Path) -> None:
    wheel = _wheel(tmp_path / "dist")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    with server_process(tmp_path / "server") as served:
        script = f"SERVER_PACKAGES = {SERVER_PACKAGES!r}\nADDRESS = {served.address!r}\n" + CHECK
        done = subprocess.run(
            [sys.executable, "-c", script],
            env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"},
            cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["file"].startswith(str(site))
    assert seen["tools"] >= 7
    assert seen["health"] == "SERVING"
    assert seen["reason"] == "TASK_NOT_FOUND"
