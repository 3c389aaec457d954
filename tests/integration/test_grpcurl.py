"""What a person does by hand with grpcurl, against a real `agentd serve` process.

No proto files are given to grpcurl: everything comes from server reflection.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import ServerProcess, server_process

GRPCURL = Path(sys.executable).parent / "grpcurl"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with server_process(tmp_path_factory.mktemp("grpcurl")) as process:
        yield process


def grpcurl(
    served: ServerProcess, *args: str, data: object | None = None
) -> subprocess.CompletedProcess[str]:
    command = [str(GRPCURL), "-plaintext", "-max-time", "20"]
    if data is not None:
        command += ["-d", json.dumps(data)]
    command += [served.address, *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=30, check=False)


def test_list_shows_every_service(served: ServerProcess) -> None:
    out = grpcurl(served, "list")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [
        "agentd.v1.AgentService",
        "agentd.v1.EvalService",
        "agentd.v1.MemoryService",
        "agentd.v1.ScheduleService",
        "agentd.v1.TriggerService",
        "grpc.health.v1.Health",
        "grpc.reflection.v1.ServerReflection",
        "grpc.reflection.v1alpha.ServerReflection",
    ]


def test_describe_service_and_messages(served: ServerProcess) -> None:
    out = grpcurl(served, "describe", "agentd.v1.AgentService")
    assert out.returncode == 0, out.stderr
    for rpc in (
        "Execute",
        "Plan",
        "CallTool",
        "GetTask",
        "ListTools",
        "CancelTask",
        "StreamTaskEvents",
    ):
        assert f"rpc {rpc} (" in out.stdout
    assert "returns ( stream .agentd.v1.TaskEvent )" in out.stdout
    event = grpcurl(served, "describe", "agentd.v1.TaskEvent")
    assert "oneof payload" in event.stdout
    v1 = grpcurl(served, "describe", "grpc.reflection.v1.ServerReflection")
    assert v1.returncode == 0, v1.stderr


def test_health_check(served: ServerProcess) -> None:
    out = grpcurl(served, "grpc.health.v1.Health/Check")
    assert json.loads(out.stdout) == {"status": "SERVING"}
    out = grpcurl(served, "grpc.health.v1.Health/Check", data={"service": "agentd.v1.AgentService"})
    assert json.loads(out.stdout) == {"status": "SERVING"}


def test_call_tool_with_json_arguments(served: ServerProcess) -> None:
    out = grpcurl(
        served,
        "agentd.v1.AgentService/CallTool",
        data={"tool_name": "calculator", "arguments": {"expression": "(17 + 25) * 3 / 7"}},
    )
    assert out.returncode == 0, out.stderr
    response = json.loads(out.stdout)
    assert response["text"] == "18"
    assert response["result"]["value"] == 18
    assert response["call_id"].startswith("call_")


def test_bad_arguments_show_invalid_argument_with_violations(served: ServerProcess) -> None:
    out = grpcurl(
        served,
        "agentd.v1.AgentService/CallTool",
        data={"tool_name": "calculator", "arguments": {"expression": 42, "unexpected": True}},
    )
    assert out.returncode != 0
    assert "Code: InvalidArgument" in out.stderr
    assert '"reason":"TOOL_ARGUMENTS_INVALID"' in out.stderr
    assert '"field":"arguments.expression"' in out.stderr
    assert '"field":"arguments.unexpected"' in out.stderr


def test_unknown_task_is_not_found(served: ServerProcess) -> None:
    out = grpcurl(served, "agentd.v1.AgentService/GetTask", data={"task_id": "task_nope"})
    assert "Code: NotFound" in out.stderr
    assert '"reason":"TASK_NOT_FOUND"' in out.stderr


def test_list_tools(served: ServerProcess) -> None:
    out = grpcurl(served, "agentd.v1.AgentService/ListTools")
    tools = json.loads(out.stdout)["tools"]
    calc = next(t for t in tools if t["name"] == "calculator")
    assert calc["required_permission"] == "PERMISSION_LEVEL_NONE"
    assert calc["parameters_schema"]["properties"]["expression"]["type"] == "string"


def test_health_watch_streams_the_status(served: ServerProcess) -> None:
    command = [str(GRPCURL), "-plaintext", "-max-time", "2", served.address]
    command += ["grpc.health.v1.Health/Watch"]
    out = subprocess.run(command, capture_output=True, text=True, timeout=30, check=False)
    assert json.loads(out.stdout) == {"status": "SERVING"}
    assert "DeadlineExceeded" in out.stderr  # the stream stays open until the deadline
    assert "Unknown" not in out.stderr
