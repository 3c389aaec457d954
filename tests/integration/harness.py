"""An agentd server wired to the fake OpenAI-compatible server, for engine tests.

Everything is real except the model: agentd's grpc.aio server, the typed
client, the `openai` client and HTTP with streaming; the model's replies come
from a script played by `FakeOpenAIServer`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.llm.fakes.embeddings import DEFAULT_DIMENSIONS
from agent.llm.fakes.script import Script
from agent.llm.fakes.server import FakeOpenAIServer
from agentd.v1 import events_pb2, tasks_pb2
from agentd_client.client import AgentClient
from server.app import AgentdServer
from tests.servers import QUIET, Running, running_server, settings_in

PLANNER = "You are the planner"
EXECUTOR = "You are the executor"
CRITIC = "You are the critic"
SYNTHESIZER = "You write the final answer"


@dataclass
class Harness:
    llm: FakeOpenAIServer
    running: Running
    client: AgentClient

    @property
    def server(self) -> AgentdServer:
        return self.running.server

    async def run(self, task: str, **options: Any) -> list[events_pb2.TaskEvent]:
        """Execute a task and return every event of its stream."""
        return [event async for event in self.client.execute(task, **options)]


def model_settings(llm: FakeOpenAIServer) -> dict[str, Any]:
    """Settings that point a server at the scripted model."""
    return {"llm_base_url": llm.base_url, "llm_api_key": "test-key", "llm_model": "fake-model"}


@asynccontextmanager
async def harness(
    tmp_path: Path, replies: Sequence[Any] | Script, **settings: Any
) -> AsyncIterator[Harness]:
    """`running_server` on a scripted model; tests of auth, grants, rate limits and
    metrics set their own `settings`."""
    dimensions = int(settings.get("embedding_dimensions", DEFAULT_DIMENSIONS))
    async with FakeOpenAIServer(replies, embedding_dimensions=dimensions) as llm:
        config = settings_in(
            tmp_path, **{**QUIET, **model_settings(llm), "grace_period_seconds": 1.0, **settings}
        )
        async with running_server(config) as running:
            yield Harness(llm, running, running.client(timeout=20))


def kinds(events: Sequence[events_pb2.TaskEvent]) -> list[str]:
    return [e.WhichOneof("payload") or "" for e in events]


def of_kind(events: Sequence[events_pb2.TaskEvent], kind: str) -> list[Any]:
    return [getattr(e, kind) for e in events if e.WhichOneof("payload") == kind]


def final(events: Sequence[events_pb2.TaskEvent]) -> events_pb2.FinalAnswer:
    answers = of_kind(events, "final_answer")
    assert len(answers) == 1, kinds(events)
    answer: events_pb2.FinalAnswer = answers[0]
    return answer


def assert_well_formed(
    events: Sequence[events_pb2.TaskEvent], status: int = tasks_pb2.TASK_STATUS_COMPLETED
) -> None:
    """One task id, sequences 1..N, first event PENDING, last event the terminal status."""
    assert events, "no events"
    assert len({e.task_id for e in events}) == 1
    assert [e.sequence for e in events] == list(range(1, len(events) + 1))
    assert events[0].status_changed.current == tasks_pb2.TASK_STATUS_PENDING
    assert events[-1].WhichOneof("payload") == "status_changed"
    assert events[-1].status_changed.current == status
    assert all(len(e.trace_id) == 32 for e in events)


def stopped_without_result(events: Sequence[events_pb2.TaskEvent]) -> events_pb2.TaskStatusChanged:
    """The end of a task a limit stopped before any usable result: FAILED with the limit as
    its stop reason and TASK_LIMIT_REACHED as its error, and no final answer."""
    assert_well_formed(events, tasks_pb2.TASK_STATUS_FAILED)
    assert "final_answer" not in kinds(events)
    assert of_kind(events, "error")[-1].reason == "TASK_LIMIT_REACHED"
    end: events_pb2.TaskStatusChanged = events[-1].status_changed
    return end
