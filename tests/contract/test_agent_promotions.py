"""The agent store's promoted versions (`AgentStore.promote`), on memory, SQLite and the
machine's PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable
from pathlib import Path

import pytest

from core.errors import AgentNotFoundError
from records.agents.definition import AgentDefinition, AgentVersion
from records.paging import KeyCursor, Page
from stores.agents.base import AgentStore
from stores.agents.memory import InMemoryAgentStore
from stores.agents.sql import SqlAgentStore
from tests.contract.conftest import SQL_BACKENDS, migrated_database
from tests.paging import every_page


@pytest.fixture(params=["memory", *SQL_BACKENDS])
async def agents(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[AgentStore]:
    if request.param == "memory":
        yield InMemoryAgentStore()
        return
    async with migrated_database(request.param, tmp_path) as database:
        yield SqlAgentStore(database)


async def three_versions(agents: AgentStore, agent_id: str = "support") -> None:
    await agents.create("acme", AgentDefinition(agent_id, instructions="v1"), "alice")
    for n in (2, 3):
        await agents.update("acme", AgentDefinition(agent_id, instructions=f"v{n}"), "alice")


def shown(version: AgentVersion | None) -> tuple[str, int, int] | None:
    """(instructions, version, promoted version)."""
    if version is None:
        return None
    return (version.agent.instructions, version.agent.version, version.promoted)


async def test_none_promoted_the_gate_serves_the_first_version(agents: AgentStore) -> None:
    await three_versions(agents)
    assert shown(await agents.get("acme", "support")) == ("v3", 3, 0)
    assert shown(await agents.get("acme", "support", promoted=True)) == ("v1", 1, 0)
    listed = (await agents.list("acme", size=10, promoted=True)).items
    assert [shown(v) for v in listed] == [("v1", 1, 0)]


async def test_a_promoted_version_is_what_the_gate_serves(agents: AgentStore) -> None:
    await three_versions(agents)
    promoted = await agents.promote("acme", "support", 2, "alice")
    assert shown(promoted) == ("v2", 2, 2)
    assert shown(await agents.get("acme", "support")) == ("v3", 3, 2)
    assert shown(await agents.get("acme", "support", promoted=True)) == ("v2", 2, 2)
    assert shown(await agents.get("acme", "support", 1)) == ("v1", 1, 2)
    assert shown(await agents.get("acme", "support", 3, promoted=True)) == ("v3", 3, 2)
    assert [shown(v) for v in (await agents.list("acme", size=10)).items] == [("v3", 3, 2)]
    gated = (await agents.list("acme", size=10, promoted=True)).items
    assert [shown(v) for v in gated] == [("v2", 2, 2)]


async def test_the_next_promotion_replaces_the_pointer(agents: AgentStore) -> None:
    await three_versions(agents)
    await agents.promote("acme", "support", 3, "alice")
    await agents.promote("acme", "support", 1, "bob")  # back to the first
    assert shown(await agents.get("acme", "support", promoted=True)) == ("v1", 1, 1)
    await agents.update("acme", AgentDefinition("support", instructions="v4"), "alice")
    assert shown(await agents.get("acme", "support")) == ("v4", 4, 1)
    assert shown(await agents.get("acme", "support", promoted=True)) == ("v1", 1, 1)


async def test_only_a_kept_version_of_a_living_agent_is_promoted(agents: AgentStore) -> None:
    await three_versions(agents)
    await agents.create("globex", AgentDefinition("other"), "gil")
    for tenant, agent_id, version in [
        ("acme", "support", 4),
        ("acme", "nobody", 1),
        ("globex", "support", 1),  # another tenant's
        ("acme", "other", 1),
    ]:
        with pytest.raises(AgentNotFoundError):
            await agents.promote(tenant, agent_id, version, "alice")
    assert shown(await agents.get("acme", "support", promoted=True)) == ("v1", 1, 0)
    assert shown(await agents.get("globex", "other", promoted=True)) == ("", 1, 0)


async def test_a_deleted_agent_has_none_promoted_and_is_not_promoted(agents: AgentStore) -> None:
    await three_versions(agents)
    await agents.promote("acme", "support", 2, "alice")
    assert await agents.delete("acme", "support")
    assert await agents.get("acme", "support", promoted=True) is None
    assert shown(await agents.get("acme", "support", 2)) == ("v2", 2, 0)
    assert (await agents.list("acme", size=10, promoted=True)).items == ()
    with pytest.raises(AgentNotFoundError):
        await agents.promote("acme", "support", 3, "alice")


async def test_a_create_after_a_delete_starts_with_none_promoted(agents: AgentStore) -> None:
    await three_versions(agents)
    await agents.promote("acme", "support", 3, "alice")
    assert await agents.delete("acme", "support")
    again = await agents.create("acme", AgentDefinition("support", instructions="new"), "bob")
    assert shown(again) == ("new", 4, 0)
    await agents.update("acme", AgentDefinition("support", instructions="newer"), "bob")
    assert shown(await agents.get("acme", "support", promoted=True)) == ("new", 4, 0)
    for before in (1, 3):  # versions of the agent before the delete
        with pytest.raises(AgentNotFoundError):
            await agents.promote("acme", "support", before, "bob")
    assert shown(await agents.promote("acme", "support", 5, "bob")) == ("newer", 5, 5)
    assert shown(await agents.get("acme", "support", promoted=True)) == ("newer", 5, 5)


@pytest.mark.parametrize("size", [1, 2, 4, 5])
async def test_every_page_of_the_gated_list_is_read_once(agents: AgentStore, size: int) -> None:
    ids = ["a", "b", "c", "d"]
    for agent_id in reversed(ids):
        await three_versions(agents, agent_id)
    await agents.promote("acme", "b", 3, "alice")
    await agents.promote("acme", "c", 2, "alice")
    await agents.promote("acme", "d", 1, "alice")
    await agents.create("acme", AgentDefinition("e"), "alice")

    def read(after: KeyCursor | None) -> Awaitable[Page[AgentVersion, KeyCursor]]:
        return agents.list("acme", size=size, after=after, promoted=True)

    listed = [(v.agent.agent_id, shown(v)) for p in await every_page(read) for v in p]
    assert listed == [
        ("a", ("v1", 1, 0)),
        ("b", ("v3", 3, 3)),
        ("c", ("v2", 2, 2)),
        ("d", ("v1", 1, 1)),
        ("e", ("", 1, 0)),
    ]
