"""Long-term memory over every knowledge backend (in process, SQLite, PostgreSQL with
pgvector): shared namespaces need a role to read and one to write; forgetting a user
removes what they wrote into shared namespaces too; a memory as similar as the setting to
a stored one keeps the stored one; updates and deletions stay in the user's scope."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from agent.knowledge.memories import LongTermMemory
from agent.llm.embeddings import HashEmbedder
from core.errors import InvalidArgumentError, MemoryNotFoundError, RoleRequiredError
from core.roles import DEFAULT_ROLES, Action
from records.knowledge.items import Scope
from stores.knowledge.base import KnowledgeStore
from tests.contract.knowledge_backends import BACKENDS, knowledge_store

EMBED = HashEmbedder(256)
FAQ = "shared:faq"
READER, WRITER = ("reader",), ("writer",)
ROLES = DEFAULT_ROLES.with_roles(
    {Action.READ_SHARED_MEMORY: (*READER, *WRITER), Action.WRITE_SHARED_MEMORY: WRITER}
)


@pytest.fixture(params=BACKENDS)
async def store(
    request: pytest.FixtureRequest, tmp_path: Path, pgvector_socket: str
) -> AsyncIterator[KnowledgeStore]:
    async with knowledge_store(request.param, tmp_path, pgvector_socket) as made:
        yield made


def memory_over(store: KnowledgeStore, similar: float = 0.95) -> LongTermMemory:
    return LongTermMemory(store, EMBED, similar=similar, role_table=ROLES)


async def texts(memory: LongTermMemory, user: str, namespace: str = "", **kw: object) -> set[str]:
    roles = kw.get("roles", ())
    assert isinstance(roles, tuple)
    listed = (await memory.list_memories("acme", user, namespace, roles=roles)).items
    return {i.text for i in listed}


async def test_a_shared_namespace_needs_a_role_to_write_and_one_to_read(
    store: KnowledgeStore,
) -> None:
    memory = memory_over(store)
    opens = await memory.remember("acme", "alice", FAQ, "The office opens at nine", roles=WRITER)
    assert (opens.user, opens.namespace) == ("alice", FAQ)

    for roles in ((), READER):  # bob may not write it, reader or not
        with pytest.raises(RoleRequiredError) as refused:
            await memory.remember("acme", "bob", FAQ, "The office closes at five", roles=roles)
        assert refused.value.reason == "PERMISSION_DENIED"
    with pytest.raises(RoleRequiredError):
        await memory.recall("acme", "bob", "office hours", namespaces=(FAQ,))
    with pytest.raises(RoleRequiredError):
        await memory.list_memories("acme", "bob", FAQ)
    with pytest.raises(RoleRequiredError):
        await memory.forget("acme", "bob", opens.item_id, roles=READER)

    hits = await memory.recall("acme", "bob", "when does the office open", namespaces=(FAQ,),
                               roles=READER)  # fmt: skip
    assert [h.item.item_id for h in hits] == [opens.item_id]
    assert await texts(memory, "bob", FAQ, roles=READER) == {"The office opens at nine"}
    assert await texts(memory, "carol", FAQ, roles=WRITER) == {"The office opens at nine"}
    # Bob's own memories and recall do not include the shared namespace unless named.
    assert await texts(memory, "bob") == set()
    assert not await memory.recall("acme", "bob", "when does the office open", roles=READER)
    # Another tenant's user, whatever their roles, finds nothing of acme's.
    assert not await memory.recall("globex", "bob", "office", namespaces=(FAQ,), roles=WRITER)
    listed = (await memory.list_memories("globex", "bob", FAQ, roles=WRITER)).items
    assert listed == ()

    # Own and shared namespaces together: one ranking of both.
    mine = await memory.remember("acme", "bob", "default", "Bob's office is on floor 3")
    both = await memory.recall("acme", "bob", "office", namespaces=("default", FAQ),
                               roles=READER)  # fmt: skip
    assert {h.item.item_id for h in both} == {mine.item_id, opens.item_id}
    similarities = [h.similarity for h in both]
    assert similarities == sorted(similarities, reverse=True)

    await memory.forget("acme", "carol", opens.item_id, roles=WRITER)
    assert await texts(memory, "bob", FAQ, roles=READER) == set()


async def test_forgetting_a_user_removes_what_they_wrote_into_shared_namespaces(
    store: KnowledgeStore,
) -> None:
    memory = memory_over(store)
    await memory.remember("acme", "alice", "default", "Alice likes green tea")
    await memory.remember("acme", "alice", FAQ, "Parking is behind the building", roles=WRITER)
    await memory.remember("acme", "bob", FAQ, "The canteen serves lunch at noon", roles=WRITER)
    await memory.remember("globex", "alice", FAQ, "Globex parking is free", roles=WRITER)
    assert await texts(memory, "alice") == {
        "Alice likes green tea",
        "Parking is behind the building",
    }

    assert await memory.forget_user("acme", "alice") == 2

    assert await texts(memory, "bob", FAQ, roles=READER) == {"The canteen serves lunch at noon"}
    assert await store.count(Scope("acme", "memory", "alice")) == 0
    left = await store.scan(limit=100)
    assert sorted((i.tenant, i.user) for i in left) == [("acme", "bob"), ("globex", "alice")]
    engine: AsyncEngine | None = getattr(store, "_engine", None)
    if engine is not None:  # the tables themselves
        async with engine.connect() as connection:
            rows = await connection.scalar(
                text(
                    "SELECT count(*) FROM knowledge_items WHERE user_id = 'alice' "
                    "AND tenant = 'acme'"
                )
            )
        assert rows == 0


async def test_a_memory_as_similar_as_the_setting_keeps_the_stored_one(
    store: KnowledgeStore,
) -> None:
    strict, loose = memory_over(store), memory_over(store, similar=0.9)
    first = await strict.remember(
        "acme", "alice", "default", "Alice likes green tea in the morning"
    )
    again = await strict.remember(
        "acme", "alice", "default", "alice likes green tea, in the morning!"
    )
    assert again.item_id == first.item_id  # same words: kept once
    close = await loose.remember(
        "acme", "alice", "default", "Alice likes green tea in the mornings"
    )
    assert close.item_id == first.item_id  # ≥ 0.9 similar
    other = await strict.remember(
        "acme", "alice", "default", "Alice likes green tea in the mornings"
    )
    assert other.item_id != first.item_id  # < 0.95 similar: a memory of its own
    # Another user's or namespace's memory is never the one kept.
    bobs = await strict.remember("acme", "bob", "default", "Alice likes green tea in the morning")
    prefs = await strict.remember("acme", "alice", "prefs", "Alice likes green tea in the morning")
    assert len({first.item_id, bobs.item_id, prefs.item_id}) == 3
    # In a shared namespace, whoever wrote it.
    shared = await strict.remember("acme", "alice", FAQ, "Lunch is at noon", roles=WRITER)
    same = await strict.remember("acme", "bob", FAQ, "lunch is at noon.", roles=WRITER)
    assert (same.item_id, same.user) == (shared.item_id, "alice")


async def test_updates_and_deletions_stay_in_the_users_scope(store: KnowledgeStore) -> None:
    memory = memory_over(store)
    old = await memory.remember("acme", "alice", "default", "Alice lives in Lima")
    new = await memory.update("acme", "alice", old.item_id, "Alice lives in Cusco")
    assert new.item_id != old.item_id
    assert await texts(memory, "alice") == {"Alice lives in Cusco"}

    for tenant, user in (("acme", "bob"), ("globex", "alice")):
        with pytest.raises(MemoryNotFoundError):
            await memory.update(tenant, user, new.item_id, "Alice lives in Quito")
        with pytest.raises(MemoryNotFoundError):
            await memory.forget(tenant, user, new.item_id, roles=WRITER)
    with pytest.raises(InvalidArgumentError):
        await memory.update("acme", "alice", new.item_id, "   ")
    assert await texts(memory, "alice") == {"Alice lives in Cusco"}

    faq = await memory.remember("acme", "alice", FAQ, "Parking is free", roles=WRITER)
    with pytest.raises(RoleRequiredError):
        await memory.update("acme", "alice", faq.item_id, "Parking costs 2 EUR")
    fixed = await memory.update("acme", "bob", faq.item_id, "Parking costs 2 EUR", roles=WRITER)
    assert fixed.user == "bob"  # the new text's author
    assert await texts(memory, "bob", FAQ, roles=READER) == {"Parking costs 2 EUR"}


async def test_a_caller_who_may_not_read_a_shared_memory_is_not_told_it_exists(
    store: KnowledgeStore,
) -> None:
    """Deleting a shared memory without even the read role answers NOT_FOUND, as for an
    id that does not exist: PERMISSION_DENIED naming its namespace would tell the caller
    the id is real and where it lives. A reader without the write role is refused."""
    memory = memory_over(store)
    opens = await memory.remember("acme", "alice", FAQ, "The office opens at nine", roles=WRITER)
    with pytest.raises(MemoryNotFoundError):
        await memory.forget("acme", "bob", opens.item_id)
    with pytest.raises(MemoryNotFoundError):
        await memory.forget("acme", "bob", "mem_does_not_exist")
    with pytest.raises(RoleRequiredError):
        await memory.forget("acme", "bob", opens.item_id, roles=READER)
    assert await texts(memory, "carol", FAQ, roles=WRITER) == {"The office opens at nine"}


async def test_a_shared_namespace_needs_a_name_and_errors_name_the_field(
    store: KnowledgeStore,
) -> None:
    memory = memory_over(store)
    with pytest.raises(InvalidArgumentError) as empty:
        await memory.remember("acme", "alice", "shared:", "An unnamed namespace", roles=WRITER)
    assert [v.field for v in empty.value.violations] == ["namespace"]
    with pytest.raises(InvalidArgumentError) as bad:
        await memory.recall("acme", "alice", "anything", namespaces=("Bad NS",))
    assert [v.field for v in bad.value.violations] == ["namespace"]
