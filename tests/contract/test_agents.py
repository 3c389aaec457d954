"""The agent store contract, on memory, SQLite and the machine's PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path

import pytest

from core.errors import AgentExistsError, AgentNotFoundError
from records.agents.definition import AgentDefinition, AgentVersion
from records.execution import ExecutionMode
from records.paging import KeyCursor, Page
from stores.agents.base import AgentStore
from stores.agents.memory import InMemoryAgentStore
from stores.agents.sql import SqlAgentStore
from tests.contract.conftest import SQL_BACKENDS, migrated_database
from tests.paging import every_page, page_sizes

FULL = AgentDefinition(
    agent_id="support",
    description="Answers billing questions",
    instructions="You are the billing assistant of {{company}}.",
    models={"default": "m0", "critic": "m1"},
    temperature=0.2,
    max_tokens=500,
    tools=("calculator", "category:time"),
    mode=ExecutionMode.TEXT_REACT,
    max_iterations=7,
    token_budget=9_000,
    step_timeout_seconds=12.5,
    task_timeout_seconds=90.0,
    critic_policy="off",
    metadata={"team": "billing"},
)


@pytest.fixture(params=["memory", *SQL_BACKENDS])
async def agents(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[AgentStore]:
    if request.param == "memory":
        yield InMemoryAgentStore()
        return
    async with migrated_database(request.param, tmp_path) as database:
        yield SqlAgentStore(database)


async def test_every_field_round_trips_as_version_one(agents: AgentStore) -> None:
    created = await agents.create("acme", FULL, "alice")
    assert created.agent == FULL
    assert (created.tenant, created.created_by) == ("acme", "alice")
    got = await agents.get("acme", "support")
    assert got is not None
    assert got.agent == FULL
    assert got.created_at == created.created_at


async def test_updates_make_new_versions_and_old_ones_stay_readable(agents: AgentStore) -> None:
    await agents.create("acme", FULL, "alice")
    second = await agents.update("acme", AgentDefinition("support", instructions="v2"), "bob")
    third = await agents.update("acme", AgentDefinition("support", instructions="v3"), "bob")
    assert (second.agent.version, third.agent.version) == (2, 3)
    latest = await agents.get("acme", "support")
    assert latest is not None
    assert latest.agent.instructions == "v3"
    first = await agents.get("acme", "support", 1)
    assert first is not None
    assert first.agent == FULL
    assert await agents.get("acme", "support", 4) is None


async def test_tenants_never_see_each_others_agents(agents: AgentStore) -> None:
    await agents.create("acme", FULL, "alice")
    assert await agents.get("globex", "support") is None
    assert await agents.get("globex", "support", 1) is None
    assert (await agents.list("globex", size=10)).items == ()
    with pytest.raises(AgentNotFoundError):
        await agents.update("globex", FULL, "mallory")
    assert not await agents.delete("globex", "support")
    other = await agents.create("globex", FULL, "gina")  # the same id in another tenant
    assert other.agent.version == 1


async def test_an_id_is_created_once(agents: AgentStore) -> None:
    await agents.create("acme", FULL, "alice")
    with pytest.raises(AgentExistsError):
        await agents.create("acme", FULL, "bob")
    with pytest.raises(AgentNotFoundError):
        await agents.update("acme", AgentDefinition("billing"), "bob")


async def test_list_gives_the_latest_of_each_living_agent(agents: AgentStore) -> None:
    await agents.create("acme", FULL, "alice")
    await agents.create("acme", AgentDefinition("alpha"), "alice")
    await agents.update("acme", AgentDefinition("support", instructions="v2"), "alice")
    await agents.create("acme", AgentDefinition("gone"), "alice")
    assert await agents.delete("acme", "gone")
    listed = (await agents.list("acme", size=10)).items
    assert [(v.agent.agent_id, v.agent.version) for v in listed] == [("alpha", 1), ("support", 2)]


async def test_a_deleted_agent_keeps_its_versions_and_its_numbers(agents: AgentStore) -> None:
    await agents.create("acme", FULL, "alice")
    await agents.update("acme", AgentDefinition("support", instructions="v2"), "alice")
    assert await agents.delete("acme", "support")
    assert not await agents.delete("acme", "support")
    assert await agents.get("acme", "support") is None
    old = await agents.get("acme", "support", 2)
    assert old is not None
    assert old.agent.instructions == "v2"
    with pytest.raises(AgentNotFoundError):
        await agents.update("acme", FULL, "alice")
    again = await agents.create("acme", FULL, "alice")
    assert again.agent.version == 3  # numbers are never reused


async def test_concurrent_updates_never_share_a_version(agents: AgentStore) -> None:
    await agents.create("acme", FULL, "alice")
    results = await asyncio.gather(
        *(agents.update("acme", AgentDefinition("support", instructions=f"v{n}"), "x")
          for n in range(5)),
        return_exceptions=True,
    )  # fmt: skip
    made = [r.agent.version for r in results if not isinstance(r, BaseException)]
    refused = [r for r in results if isinstance(r, BaseException)]
    assert all(isinstance(r, AgentExistsError) for r in refused)
    assert len(made) == len(set(made)) >= 1
    latest = await agents.get("acme", "support")
    assert latest is not None
    assert latest.agent.version == 1 + len(made)


async def test_an_update_racing_a_delete_never_brings_the_agent_back(agents: AgentStore) -> None:
    """Whichever goes first, a delete that says it deleted leaves no live agent behind."""
    store = agents
    for n in range(15):
        agent_id = f"racer-{n}"
        await store.create("acme", AgentDefinition(agent_id=agent_id), "alice")

        async def update(agent_id: str = agent_id) -> bool:
            try:
                changed = AgentDefinition(agent_id=agent_id, description="changed")
                await store.update("acme", changed, "bob")
            except (AgentNotFoundError, AgentExistsError):
                return False
            return True

        _, deleted = await asyncio.gather(update(), store.delete("acme", agent_id))
        assert deleted
        assert await store.get("acme", agent_id) is None, n
        listed = (await store.list("acme", size=100)).items
        assert agent_id not in [v.agent.agent_id for v in listed]


@pytest.mark.parametrize("size", [1, 2, 5, 6])
async def test_every_page_of_the_list_is_read_once(agents: AgentStore, size: int) -> None:
    ids = [f"agent_{n}" for n in range(6)]
    for agent_id in reversed(ids):  # made out of order: listed by id
        await agents.create("acme", AgentDefinition(agent_id), "alice")
    await agents.update("acme", AgentDefinition("agent_2", instructions="v2"), "alice")
    assert await agents.delete("acme", "agent_4")
    await agents.create("globex", AgentDefinition("agent_9"), "gil")

    def read(after: KeyCursor | None) -> Awaitable[Page[AgentVersion, KeyCursor]]:
        return agents.list("acme", size=size, after=after)

    pages = await every_page(read)
    assert [len(p) for p in pages] == page_sizes(5, size)
    listed = [(v.agent.agent_id, v.agent.version) for p in pages for v in p]
    assert listed == [(i, 2 if i == "agent_2" else 1) for i in ids if i != "agent_4"]


async def test_count_is_how_many_list_gives(agents: AgentStore) -> None:
    assert await agents.count("acme") == 0
    await agents.create("acme", FULL, "alice")
    await agents.create("acme", AgentDefinition("alpha"), "alice")
    await agents.update("acme", AgentDefinition("alpha", instructions="v2"), "alice")
    await agents.create("acme", AgentDefinition("gone"), "alice")
    await agents.create("globex", AgentDefinition("other"), "gil")
    assert await agents.delete("acme", "gone")
    assert await agents.count("acme") == len((await agents.list("acme", size=10)).items) == 2
    assert await agents.count("globex") == 1
