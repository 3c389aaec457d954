"""Two `agentd serve` replicas on Redis and PostgreSQL: the official A2A client streams a
task from replica A, A is killed with -9, the client subscribes on replica B after the
last position it received and gets every remaining update once, in order, and the task
completes (taken over by B)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from agent.llm.fakes.server import FakeOpenAIServer
from agentd.v1 import events_pb2, tasks_pb2
from agentd_client.client import AgentClient
from tests.helpers import server_process
from tests.integration.a2a.client_env import SCRIPT, client_python
from tests.integration.test_takeover import kill, replica_env, wait_for

pytestmark = [pytest.mark.redis, pytest.mark.postgres]

QUICK = "id: quick\nmode: function_calling\n"


def _is_update(event: events_pb2.TaskEvent) -> bool:
    """Whether an event of the log is sent to A2A clients (server.convert.a2a.update_of)."""
    kind = event.WhichOneof("payload")
    if kind == "status_changed":
        return event.status_changed.current != tasks_pb2.TASK_STATUS_INPUT_REQUIRED
    return kind in ("final_answer", "approval_requested", "input_requested")


async def test_a_stream_resumes_on_the_other_replica_after_kill_9(
    tmp_path: Path, prefix: str, database: str
) -> None:
    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "quick.yaml").write_text(QUICK)
    replies = [
        {"hold": "killed", "text": "never delivered: this replica is killed"},
        {"text": "the answer, from replica B"},
    ]
    python = await asyncio.to_thread(client_python)
    async with FakeOpenAIServer(replies) as llm:
        env = replica_env(
            llm.base_url, prefix, database, AGENTD_A2A="true", AGENTD_AGENTS_DIR=str(agents)
        )
        with (
            server_process(tmp_path / "a", env) as first,
            server_process(tmp_path / "b", env) as second,
        ):
            spec = {
                "scenario": "resume",
                "binding": "GRPC",
                "grpc": first.address,
                "grpc_b": second.address,
                "http": "",
                "token": "",
                "agent": "quick",
            }
            client = await asyncio.create_subprocess_exec(
                str(python),
                str(SCRIPT),
                json.dumps(spec),
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
            assert client.stdout is not None
            try:
                line = await asyncio.wait_for(client.stdout.readline(), timeout=60)
                assert line.decode().strip() == "READY"
                await wait_for(lambda: len(llm.requests) == 1, 10)  # A waits on the model
                kill(first)
                out, err = await asyncio.wait_for(client.communicate(), timeout=60)
                async with AgentClient(second.address) as native:
                    task_id = json.loads(out.decode().strip().splitlines()[-1])["head"][0]["id"]
                    log = [e async for e in native.stream_task_events(task_id)]
            finally:
                llm.release("killed")
                if client.returncode is None:
                    client.kill()
                    await client.wait()
            assert client.returncode == 0, err.decode()[-3000:]
    found = json.loads(out.decode().strip().splitlines()[-1])
    assert found["dropped"] == "A2AClientError"  # the stream from A broke
    head, rest = found["head"], found["rest"]
    assert head[0]["kind"] == "task"
    assert rest[0]["kind"] == "task"  # B's answer starts with the task, then the updates
    updates = head[1:] + rest[1:]
    sequences = [u["sequence"] for u in updates]
    assert sequences == sorted(sequences)
    assert len(sequences) == len(set(sequences))  # none twice
    # None missed: every event of the log that is an A2A update, across the two replicas.
    assert sequences == [e.sequence for e in log if _is_update(e)]
    assert any(e.WhichOneof("payload") == "resumed" for e in log)  # B took the task over
    assert [u["text"] for u in updates if u["kind"] == "artifact_update"] == [
        "the answer, from replica B"
    ]
    assert updates[-1]["state"] == "TASK_STATE_COMPLETED"
    assert (found["state"], found["answer"]) == (
        "TASK_STATE_COMPLETED",
        "the answer, from replica B",
    )
