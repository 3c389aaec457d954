"""What the Python clients send to start a task: a spend limit when one is given."""

from __future__ import annotations

from typing import Any

from agentd.v1 import agent_service_pb2, tasks_pb2
from agentd_client import AgentClient
from agentd_client.requests import execute_request
from agentd_client.sync import AgentClient as SyncAgentClient


def test_a_spend_limit_is_sent_only_when_given() -> None:
    auto = tasks_pb2.EXECUTION_MODE_AUTO
    given = execute_request("t", (), None, 0, auto, "", 0, None, None, spend_limit=7_000)
    plain = execute_request("t", (), None, 0, auto, "", 0, None, None)
    assert given.spend_limit == 7_000
    assert plain.spend_limit == 0


class _Ended(list[Any]):
    """A stream that ended before its first event."""

    def cancel(self) -> None:
        pass


class _Stub:
    """The service as a client calls it to start a task: what it was sent, kept."""

    def __init__(self) -> None:
        self.sent: list[agent_service_pb2.ExecuteRequest] = []

    def StartTask(self, request: agent_service_pb2.ExecuteRequest, **_: Any) -> tasks_pb2.Task:
        self.sent.append(request)
        return tasks_pb2.Task(task_id="task_1")

    def Execute(self, request: agent_service_pb2.ExecuteRequest, **_: Any) -> _Ended:
        self.sent.append(request)
        return _Ended()


class _AsyncStub:
    def __init__(self) -> None:
        self.sent: list[agent_service_pb2.ExecuteRequest] = []

    async def StartTask(
        self, request: agent_service_pb2.ExecuteRequest, **_: Any
    ) -> tasks_pb2.Task:
        self.sent.append(request)
        return tasks_pb2.Task(task_id="task_1")


def test_the_sync_client_sends_it_from_execute_and_start_task() -> None:
    client = SyncAgentClient("localhost:1")
    stub = _Stub()
    client._stub = stub  # type: ignore[assignment]
    client.start_task("t", spend_limit=3)
    list(client.execute("t", spend_limit=4))
    client.close()
    assert [r.spend_limit for r in stub.sent] == [3, 4]


async def test_the_async_client_sends_it_from_start_task() -> None:
    client = AgentClient("localhost:1")
    stub = _AsyncStub()
    client._stub = stub  # type: ignore[assignment]
    await client.start_task("t", spend_limit=5)
    await client.close()
    assert [r.spend_limit for r in stub.sent] == [5]
