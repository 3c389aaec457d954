"""Promoted agent versions: what the bare id resolves to with the promotion gate on and
off, and when PromoteAgentVersion's service side lets a version be promoted."""

from __future__ import annotations

import pytest

from agent.definitions.catalog import Agents
from agent.definitions.promotion import RunOutcome, require_passed
from agent.definitions.selection import lookup, resolve
from agent.definitions.toolset import delegates_of
from core.errors import (
    AgentNotFoundError,
    EvalRunNotFoundError,
    PromotionRefusedError,
    RoleRequiredError,
)
from core.identity import Principal
from records.agents.definition import AgentDefinition
from stores.agents.memory import InMemoryAgentStore

ADMIN = Principal("alice", "acme", ("admin",))
ANALYST = Principal("ann", "acme", ("analyst",))


class KeptEvalRuns:
    """Evaluation runs as promotion asks them, kept in a list (the evals store's part)."""

    def __init__(self, *runs: tuple[str, RunOutcome]) -> None:
        self.runs = list(runs)
        self.asked: list[tuple[str, str, int, str]] = []

    async def passed(self, tenant: str, agent_id: str, version: int, eval_run_id: str) -> str:
        self.asked.append((tenant, agent_id, version, eval_run_id))
        mine = [run for owner, run in self.runs if owner == tenant]
        if eval_run_id:
            named = [run for run in mine if run.eval_run_id == eval_run_id]
            if not named:
                raise EvalRunNotFoundError(eval_run_id)
            return require_passed(agent_id, version, named[0])
        passing = [
            run
            for run in mine
            if run.agent == f"{agent_id}@{version}" and run.finished and run.gate_passed
        ]
        return require_passed(agent_id, version, passing[-1] if passing else None)


def passed(run_id: str, agent: str) -> tuple[str, RunOutcome]:
    return ("acme", RunOutcome(run_id, agent, finished=True, gate_passed=True))


async def three_versions(gate: bool, runs: KeptEvalRuns | None = None) -> Agents:
    agents = Agents(InMemoryAgentStore(), promotion_gate=gate, passed_runs=runs)
    await agents.create(ADMIN, {"id": "support", "description": "v1"})
    for n in (2, 3):
        await agents.update(ADMIN, {"id": "support", "description": f"v{n}"})
    return agents


async def served(agents: Agents, reference: str = "support") -> tuple[int, int]:
    """(the version `reference` resolves to, the agent's promoted version)."""
    found = await lookup(agents, "acme", reference)
    return found.agent.version, found.promoted


async def listed(agents: Agents) -> list[tuple[str, int]]:
    page = await agents.list("acme", size=10)
    return [(v.agent.agent_id, v.agent.version) for v in page.items]


async def test_with_the_gate_off_the_bare_id_serves_the_latest() -> None:
    runs = KeptEvalRuns()
    agents = await three_versions(gate=False, runs=runs)
    assert await served(agents) == (3, 0)
    promoted = await agents.promote(ADMIN, "support", 2)  # no evaluation run asked for
    assert (promoted.agent.version, promoted.promoted) == (2, 2)
    assert runs.asked == []
    assert await served(agents) == (3, 2)
    assert await listed(agents) == [("support", 3)]


async def test_with_the_gate_on_the_bare_id_serves_the_first_until_one_is_promoted() -> None:
    agents = await three_versions(gate=True, runs=KeptEvalRuns(passed("run-2", "support@2")))
    assert await served(agents) == (1, 0)
    assert await served(agents, "support@3") == (3, 0)  # id@version still names any
    assert await listed(agents) == [("support", 1)]
    definition = await resolve(agents, "acme", "support")
    assert definition is not None
    assert definition.description == "v1"
    await agents.promote(ADMIN, "support", 2)
    assert await served(agents) == (2, 2)
    assert await listed(agents) == [("support", 2)]
    await agents.update(ADMIN, {"id": "support", "description": "v4"})  # serves v2 still
    assert await served(agents) == (2, 2)


async def test_a_delegation_by_id_meets_the_served_version() -> None:
    agents = await three_versions(gate=True, runs=KeptEvalRuns(passed("run-2", "support@2")))
    lead = AgentDefinition("lead", delegates=("support",))
    assert [d.description for d in await delegates_of(agents, "acme", lead)] == ["v1"]
    await agents.promote(ADMIN, "support", 2)
    assert [d.description for d in await delegates_of(agents, "acme", lead)] == ["v2"]


async def test_with_the_gate_on_a_version_without_a_passing_run_is_refused() -> None:
    runs = KeptEvalRuns(
        passed("run-2", "support@2"),
        ("acme", RunOutcome("run-3", "support@3", True, False, ("case-7 regressed",))),
        ("acme", RunOutcome("run-3b", "support@3", False, False)),
        ("globex", RunOutcome("run-g", "support@3", True, True)),  # another tenant's
    )
    agents = await three_versions(gate=True, runs=runs)
    refusals = {
        "": "no evaluation run of that version passed its gate",
        "run-2": "evaluation run 'run-2' is of support@2, not of support@3",
        "run-3": "evaluation run 'run-3' did not pass its gate: case-7 regressed",
        "run-3b": "evaluation run 'run-3b' has not finished",
    }
    for run_id, why in refusals.items():
        with pytest.raises(PromotionRefusedError) as refused:
            await agents.promote(ADMIN, "support", 3, run_id)
        assert str(refused.value) == f"support@3 is not promoted: {why}"
    with pytest.raises(EvalRunNotFoundError):
        await agents.promote(ADMIN, "support", 3, "run-g")
    assert await served(agents) == (1, 0)
    assert (await agents.promote(ADMIN, "support", 2, "run-2")).promoted == 2


async def test_promotion_needs_the_admin_role_and_a_kept_version() -> None:
    runs = KeptEvalRuns(passed("run-2", "support@2"))
    agents = await three_versions(gate=True, runs=runs)
    with pytest.raises(RoleRequiredError):
        await agents.promote(ANALYST, "support", 2)
    for agent_id, version in [("support", 4), ("nobody", 1)]:
        with pytest.raises(AgentNotFoundError):
            await agents.promote(ADMIN, agent_id, version)
    assert runs.asked == []  # refused before any run was asked for
    await agents.delete(ADMIN, "support")
    with pytest.raises(AgentNotFoundError):
        await agents.promote(ADMIN, "support", 2)


async def test_without_evaluation_runs_the_gate_refuses_every_promotion() -> None:
    agents = await three_versions(gate=True)
    with pytest.raises(PromotionRefusedError, match="no evaluation run of that version passed"):
        await agents.promote(ADMIN, "support", 2)


async def test_a_file_agent_is_served_as_it_is_under_the_gate() -> None:
    class Files:
        def get(self, agent_id: str) -> AgentDefinition | None:
            return AgentDefinition("filed", version=4) if agent_id == "filed" else None

        def all(self) -> list[AgentDefinition]:
            return [AgentDefinition("filed", version=4)]

    agents = Agents(InMemoryAgentStore(), Files(), promotion_gate=True)
    assert await served(agents, "filed") == (4, 0)
    with pytest.raises(AgentNotFoundError):  # not changed here
        await agents.promote(ADMIN, "filed", 4)
