"""Long-term memory: what an end user's agents remember across conversations.

A memory belongs to one tenant, one end user (the principal a task runs for: the
gateway's `agentd-on-behalf-of` user, or the caller) and one namespace (`default`,
`agent:<id>`, ...). It is found again by meaning (the embedding of a query) and never
across users or tenants: every store call is scoped by both. Writing the same text twice
in a namespace keeps one memory (content hash), and so does writing a text whose cosine
similarity to a stored memory of the namespace is at least `similar` (the stored one is
kept). Forgetting a user removes every memory of theirs from the store with its vector
and keyword entries (`forget_user`).

Shared namespaces (`shared:<name>`) belong to the tenant, not to one user: every user of
the tenant holding a read role finds their memories, and a write role is needed to add,
change or delete one (RoleRequiredError, PERMISSION_DENIED). A shared memory keeps its
author (the item's user): forgetting a user removes the shared memories they wrote too,
so that nothing a forgotten user wrote remains anywhere.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from datetime import UTC, datetime

from agent.llm.embeddings import Embedder
from core.errors import (
    FieldViolation,
    InvalidArgumentError,
    MemoryNotFoundError,
)
from core.roles import DEFAULT_ROLES, Action, RoleTable
from records.knowledge.items import NAMESPACE_PATTERN, Hit, Item, Scope, content_hash
from records.paging import KeyCursor, Page
from stores.knowledge.base import KnowledgeStore

DEFAULT_NAMESPACE = "default"
MAX_LIST = 1000
SHARED_PREFIX = "shared:"
"""Namespaces shared by the users of a tenant: `shared:faq`, `shared:team.support`..."""
SIMILAR = 0.95
"""A new memory this similar (cosine) to a stored one of its scope is not stored again."""


def is_shared(namespace: str) -> bool:
    return namespace.startswith(SHARED_PREFIX)


def new_item_id(prefix: str) -> str:
    """Ids that grow with time (listing order), with 64 random bits."""
    return f"{prefix}{time.time_ns():016x}{os.urandom(8).hex()}"


def check_namespace(namespace: str, field: str = "namespace") -> str:
    if not NAMESPACE_PATTERN.fullmatch(namespace):
        raise InvalidArgumentError(
            [FieldViolation(field, "must be 1-64 of a-z, 0-9, `_ . : -`, starting with a letter")]
        )
    if namespace == SHARED_PREFIX:
        raise InvalidArgumentError([FieldViolation(field, f"needs a name after {SHARED_PREFIX}")])
    return namespace


class LongTermMemory:
    """Memories over a knowledge store and an embedder (both owned by the caller).

    `roles` (the caller's) matter only for shared namespaces: reading one needs a role
    `role_table` gives READ_SHARED_MEMORY (the read roles and the write roles),
    writing one a role it gives WRITE_SHARED_MEMORY."""

    def __init__(
        self,
        store: KnowledgeStore,
        embedder: Embedder,
        *,
        max_text_chars: int = 4000,
        similar: float = SIMILAR,
        role_table: RoleTable = DEFAULT_ROLES,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.max_text_chars = max_text_chars
        self.similar = similar
        self.role_table = role_table

    def check_access(self, namespace: str, roles: Sequence[str], *, write: bool) -> None:
        """RoleRequiredError when `namespace` is shared and `roles` may not use it so."""
        if not is_shared(namespace):
            return
        action = Action.WRITE_SHARED_MEMORY if write else Action.READ_SHARED_MEMORY
        self.role_table.require(roles, action, namespace)

    def _scope(self, tenant: str, user: str, namespaces: Sequence[str]) -> Scope:
        """Memories of `namespaces`: the user's own, or a shared namespace's (anyone's)."""
        shared = bool(namespaces) and all(is_shared(n) for n in namespaces)
        return Scope(tenant, "memory", None if shared else user, tuple(namespaces))

    async def remember(
        self, tenant: str, user: str, namespace: str, text: str, *, roles: Sequence[str] = ()
    ) -> Item:
        """Store `text` (or find it, or one as similar as `similar`, stored already: that
        one is returned); EmbeddingsUnavailableError stores nothing."""
        check_namespace(namespace)
        self.check_access(namespace, roles, write=True)
        text = self._checked_text(text)
        await self.store.check_space(self.embedder.space)
        vectors = await self.embedder.embed([text])
        kept = await self.store.search(
            self._scope(tenant, user, (namespace,)),
            vectors[0],
            top_k=1,
            threshold=self.similar,
            space=self.embedder.space,
        )
        if kept:
            return kept[0].item
        item = Item(
            item_id=new_item_id("mem_"),
            tenant=tenant,
            kind="memory",
            user=user,
            namespace=namespace,
            text=text,
            content_hash=content_hash(text),
            created_at=datetime.now(UTC),
        )
        return (await self.store.add([item], vectors, self.embedder.space))[0]

    def _checked_text(self, text: str) -> str:
        text = text.strip()
        if not text:
            raise InvalidArgumentError([FieldViolation("text", "must not be empty")])
        if len(text) > self.max_text_chars:
            raise InvalidArgumentError(
                [FieldViolation("text", f"is longer than {self.max_text_chars} characters")]
            )
        return text

    async def recall(
        self,
        tenant: str,
        user: str,
        query: str,
        *,
        namespaces: Sequence[str] = (),
        top_k: int = 5,
        threshold: float = -1.0,
        roles: Sequence[str] = (),
    ) -> list[Hit]:
        """The memories nearest in meaning to `query`: the user's own (of `namespaces`, or
        of all theirs) and those of the shared namespaces named (none of anyone else's)."""
        for namespace in namespaces:
            check_namespace(namespace)
            self.check_access(namespace, roles, write=False)
        if top_k <= 0 or not query.strip():
            return []
        own = tuple(n for n in namespaces if not is_shared(n))
        shared = tuple(n for n in namespaces if is_shared(n))
        scopes = [self._scope(tenant, user, shared)] if shared else []
        if own or not shared:
            scopes.append(self._scope(tenant, user, own))
        vectors = await self.embedder.embed([query[: self.max_text_chars]])
        hits: list[Hit] = []
        for scope in scopes:
            hits += await self.store.search(
                scope,
                vectors[0],
                top_k=top_k,
                threshold=threshold,
                query_text=query,
                space=self.embedder.space,
            )
        if len(scopes) > 1:
            hits.sort(key=lambda h: -h.similarity)
        return hits[:top_k]

    async def list_memories(
        self,
        tenant: str,
        user: str,
        namespace: str = "",
        *,
        size: int = 100,
        after: KeyCursor | None = None,
        roles: Sequence[str] = (),
    ) -> Page[Item, KeyCursor]:
        """A page of the user's memories (those they wrote into shared namespaces
        included), or, for a shared namespace, of every memory of it: at most `size`
        (capped at `MAX_LIST`), by id after the cursor `after`."""
        namespaces = (check_namespace(namespace),) if namespace else ()
        self.check_access(namespace, roles, write=False)
        scope = self._scope(tenant, user, namespaces)
        return await self.store.page(scope, size=max(1, min(size, MAX_LIST)), after=after)

    async def _writable(self, tenant: str, user: str, memory_id: str, roles: Sequence[str]) -> Item:
        """The memory `memory_id` the user may change: one of theirs in a namespace of
        their own, or one of a shared namespace (with a write role)."""
        found = await self.store.page(Scope(tenant, "memory", item_ids=(memory_id,)), size=1)
        item = found.items[0] if found.items else None
        if item is None or (item.user != user and not is_shared(item.namespace)):
            raise MemoryNotFoundError("memory", memory_id)
        if item.user != user and not self.role_table.allows(roles, Action.READ_SHARED_MEMORY):
            raise MemoryNotFoundError("memory", memory_id)  # not even its namespace is told
        self.check_access(item.namespace, roles, write=True)
        return item

    async def forget(
        self, tenant: str, user: str, memory_id: str, *, roles: Sequence[str] = ()
    ) -> None:
        """Delete one memory of the user (or of a shared namespace); MemoryNotFoundError
        when there is none."""
        item = await self._writable(tenant, user, memory_id, roles)
        gone = await self.store.delete(
            Scope(tenant, "memory", item.user, (item.namespace,), item_ids=(memory_id,))
        )
        if not gone:
            raise MemoryNotFoundError("memory", memory_id)

    async def update(
        self, tenant: str, user: str, memory_id: str, text: str, *, roles: Sequence[str] = ()
    ) -> Item:
        """Replace a memory's text: the new text is stored (or found stored) first, then
        the old memory deleted, so that a failure between loses nothing. The new memory
        is the user's (its author), in the old one's namespace."""
        old = await self._writable(tenant, user, memory_id, roles)
        new = await self.remember(tenant, user, old.namespace, text, roles=roles)
        if new.item_id != old.item_id:
            await self.store.delete(
                Scope(tenant, "memory", old.user, (old.namespace,), item_ids=(memory_id,))
            )
        return new

    async def forget_user(self, tenant: str, user: str) -> int:
        """Delete every memory of the user in the tenant, those they wrote into shared
        namespaces included; how many there were."""
        return await self.store.delete(Scope(tenant, "memory", user))


PROBE = "agentd memory reindex"
"""What `reindex` embeds first, to see that the endpoint answers vectors of its space."""


async def reindex(store: KnowledgeStore, embedder: Embedder, *, batch: int = 256) -> int:
    """Re-embed every stored item with `embedder` and make its space the store's; how many
    items were re-embedded. Run it with writes stopped (`agentd memory reindex`).

    The endpoint is asked first, whatever the store holds: one that cannot be reached, or
    answers vectors of other dimensions, raises EmbeddingsUnavailableError before
    anything changed (a store of no items is not "re-embedded" by a model never heard)."""
    await embedder.embed([PROBE])
    after, count = "", 0
    for _ in range(10_000_000):  # bounded: each round moves past the last id
        items = await store.scan(after=after, limit=batch)
        if not items:
            break
        vectors = await embedder.embed([i.text for i in items])
        await store.set_vectors([i.item_id for i in items], vectors)
        count += len(items)
        after = items[-1].item_id
    await store.set_space(embedder.space)
    return count
