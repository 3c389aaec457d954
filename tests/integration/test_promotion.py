"""Promoted agent versions through the real server and the Python client: with
AGENTD_PROMOTION_GATE on, new versions wait behind the promoted one (tasks, GetAgent,
ListAgents) until an evaluation run of them passed their gate; with it off the latest
serves and promotion records the pointer. `agentd agents promote` says the same."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import grpc
import pytest

from agent.definitions.promotion import RunOutcome, require_passed
from agent.llm.fakes.server import FakeOpenAIServer
from agentd.v1 import agents_pb2, tasks_pb2
from agentd_client import SyncAgentClient
from agentd_client.client import AgentClient
from agentd_client.errors import PromotionRefusedError
from core.errors import EvalRunNotFoundError
from tests.helpers import ROOT
from tests.integration.harness import final, model_settings
from tests.servers import QUIET, Running, running_server, settings_in

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
REPLIES = [
    {"match": f"support version {n}.", "text": f"answer of v{n}", "repeat": -1} for n in (1, 2, 3)
]


class KeptEvalRuns:
    """Evaluation runs as promotion asks them, kept in a list (the evals store's part)."""

    def __init__(self, *runs: RunOutcome) -> None:
        self.runs = list(runs)

    async def passed(self, tenant: str, agent_id: str, version: int, eval_run_id: str) -> str:
        if eval_run_id:
            named = [run for run in self.runs if run.eval_run_id == eval_run_id]
            if not named:
                raise EvalRunNotFoundError(eval_run_id)
            return require_passed(agent_id, version, named[0])
        reference = f"{agent_id}@{version}"
        passing = [r for r in self.runs if r.agent == reference and r.finished and r.gate_passed]
        return require_passed(agent_id, version, passing[-1] if passing else None)


RUNS = KeptEvalRuns(
    RunOutcome("run-v2", "support@2", finished=True, gate_passed=True),
    RunOutcome("run-v3", "support@3", True, False, ("case-12: exact: wrong total",)),
)


@asynccontextmanager
async def served(
    tmp_path: Path, gate: bool, replies: list[dict[str, Any]] = REPLIES
) -> AsyncIterator[tuple[Running, AgentClient]]:
    async with FakeOpenAIServer(replies) as llm:
        config = settings_in(
            tmp_path,
            **QUIET,
            **model_settings(llm),
            anonymous_roles=["admin"],
            promotion_gate=gate,
        )
        async with running_server(config, passed_runs=RUNS) as running:
            yield running, running.client(timeout=20)


async def three_versions(client: AgentClient) -> None:
    agent = agents_pb2.Agent(id="support", instructions="You are support version 1.")
    assert (await client.create_agent(agent)).version == 1
    for n in (2, 3):
        agent.instructions = f"You are support version {n}."
        assert (await client.update_agent(agent)).version == n


async def answered_as(client: AgentClient, agent: str) -> tuple[str, str]:
    """(the answer, Task.agent) of a task started with `agent`."""
    events = [e async for e in client.execute("Which version are you?", agent=agent, mode=FC)]
    task = await client.get_task(events[0].task_id)
    return final(events).text, task.agent


async def shown(client: AgentClient, agent: str = "support") -> tuple[int, int]:
    found = await client.get_agent(agent)
    return found.version, found.promoted_version


async def listed(client: AgentClient) -> list[tuple[str, int, int]]:
    return [(a.id, a.version, a.promoted_version) for a in await client.list_agents()]


async def cli(running: Running, *args: str) -> tuple[int, str, str]:
    """`agentd` as a process of its own against the running server."""
    inherited = {k: v for k, v in os.environ.items() if not k.startswith("AGENTD_")}
    process = await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "server.commands.cli", "--address", running.address, *args),
        cwd=ROOT,
        env=inherited,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_with_the_gate_on_a_version_serves_once_promoted_after_its_run(
    tmp_path: Path,
) -> None:
    async with served(tmp_path, gate=True) as (running, client):
        await three_versions(client)
        assert await answered_as(client, "support") == ("answer of v1", "support@1")
        assert await answered_as(client, "support@3") == ("answer of v3", "support@3")
        assert await shown(client) == (1, 0)
        assert await listed(client) == [("support", 1, 0)]

        with pytest.raises(PromotionRefusedError) as refused:
            await client.promote_agent_version("support", 3)
        assert refused.value.reason == "PROMOTION_REFUSED"
        assert "no evaluation run of that version passed its gate" in refused.value.message
        with pytest.raises(PromotionRefusedError, match="case-12: exact: wrong total"):
            await client.promote_agent_version("support", 3, eval_run_id="run-v3")
        with pytest.raises(PromotionRefusedError, match="'run-v2' is of support@2"):
            await client.promote_agent_version("support", 3, eval_run_id="run-v2")
        stub_call = running.stub.PromoteAgentVersion(
            agents_pb2.PromoteAgentVersionRequest(agent_id="support", version=3)
        )
        with pytest.raises(grpc.aio.AioRpcError) as status:
            await stub_call
        assert status.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert await shown(client) == (1, 0)

        promoted = await client.promote_agent_version("support", 2, eval_run_id="run-v2")
        assert (promoted.version, promoted.promoted_version) == (2, 2)
        assert await answered_as(client, "support") == ("answer of v2", "support@2")
        assert await shown(client) == (2, 2)
        assert await shown(client, "support@3") == (3, 2)
        assert await listed(client) == [("support", 2, 2)]

        agent = agents_pb2.Agent(id="support", instructions="You are support version 3.")
        assert (await client.update_agent(agent)).version == 4  # waits behind v2
        assert await answered_as(client, "support") == ("answer of v2", "support@2")


async def test_agents_promote_on_the_command_line(tmp_path: Path) -> None:
    async with served(tmp_path, gate=True) as (running, client):
        await three_versions(client)
        code, out, err = await cli(running, "agents", "promote", "support@3")
        assert (code, out) == (1, "")
        assert "FAILED_PRECONDITION PROMOTION_REFUSED" in err
        assert "support@3 is not promoted: no evaluation run" in err
        code, out, err = await cli(
            running, "agents", "promote", "support@2", "--eval-run", "run-v2"
        )
        assert (code, out, err) == (0, "promoted support version 2\n", "")
        assert await shown(client) == (2, 2)
        code, _, err = await cli(running, "agents", "promote", "support")
        assert code == 2
        assert "name the version to promote, as id@version" in err


async def test_with_the_gate_off_the_latest_serves_and_promotion_records_the_pointer(
    tmp_path: Path,
) -> None:
    async with served(tmp_path, gate=False) as (_, client):
        await three_versions(client)
        assert await answered_as(client, "support") == ("answer of v3", "support@3")
        assert await shown(client) == (3, 0)
        promoted = await client.promote_agent_version("support", 1)  # no run needed
        assert (promoted.version, promoted.promoted_version) == (1, 1)
        assert await answered_as(client, "support") == ("answer of v3", "support@3")
        assert await shown(client) == (3, 1)
        assert await listed(client) == [("support", 3, 1)]


async def test_the_sync_client_promotes_and_is_refused_as_the_async_one(tmp_path: Path) -> None:
    async with served(tmp_path, gate=True) as (running, client):
        await three_versions(client)

        def promote_both() -> tuple[str, int]:
            with SyncAgentClient(running.address, timeout=20) as sync:
                with pytest.raises(PromotionRefusedError) as refused:
                    sync.promote_agent_version("support", 3)
                promoted = sync.promote_agent_version("support", 2, eval_run_id="run-v2")
            return refused.value.reason, promoted.promoted_version

        assert await asyncio.to_thread(promote_both) == ("PROMOTION_REFUSED", 2)
        assert await shown(client) == (2, 2)


async def test_a_delegation_by_id_runs_the_version_the_id_serves(tmp_path: Path) -> None:
    delegate = {"name": "agent_support", "arguments": {"task": "Which version are you?"}}
    replies: list[dict[str, Any]] = [
        {"match": "You lead.", "tool_calls": [delegate]},
        {"match": "You lead.", "text": "lead done"},
        {"match": "You lead.", "tool_calls": [delegate]},
        {"match": "You lead.", "text": "lead done again"},
        *REPLIES,
    ]
    async with served(tmp_path, gate=True, replies=replies) as (_, client):
        await three_versions(client)
        lead = agents_pb2.Agent(id="lead", instructions="You lead.", delegates=["support"])
        await client.create_agent(lead)

        async def child_of_a_lead_task() -> tuple[str, str]:
            events = [e async for e in client.execute("Ask support.", agent="lead", mode=FC)]
            task = await client.get_task(events[0].task_id)
            (child,) = task.children
            answer = (await client.get_task(child.task_id)).final_answer
            return child.agent, answer

        assert await child_of_a_lead_task() == ("support@1", "answer of v1")
        await client.promote_agent_version("support", 2, eval_run_id="run-v2")
        assert await child_of_a_lead_task() == ("support@2", "answer of v2")
