"""Long-term memory: what an end user's agents remember across conversations.

A memory belongs to one tenant, one end user (the principal a task runs for: the
gateway's `agentd-on-behalf-of` user, or the caller) and one namespace (`default`,
`agent:<id>`, ...). It is found again by meaning (the embedding of a query) and never
across users or tenants: every store call is scoped by both. Writing the same text twice
in a namespace keeps one memory (content hash). Forgetting a user removes every memory of
theirs from the store with its vector and keyword entries (`forget_user`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from datetime import UTC, datetime

from agent.knowledge.records import NAMESPACE_PATTERN, Hit, Item, Scope, content_hash
from agent.llm.embeddings import Embedder
from core.errors import FieldViolation, InvalidArgumentError, MemoryNotFoundError
from stores.knowledge.base import KnowledgeStore

DEFAULT_NAMESPACE = "default"
MAX_LIST = 1000


def new_item_id(prefix: str) -> str:
    """Ids that grow with time (listing order), with 64 random bits."""
    return f"{prefix}{time.time_ns():016x}{os.urandom(8).hex()}"


def check_namespace(namespace: str, field: str = "namespace") -> str:
    if not NAMESPACE_PATTERN.fullmatch(namespace):
        raise InvalidArgumentError(
            [FieldViolation(field, "must be 1-64 of a-z, 0-9, `_ . : -`, starting with a letter")]
        )
    return namespace


class LongTermMemory:
    """Memories over a knowledge store and an embedder (both owned by the caller)."""

    def __init__(
        self, store: KnowledgeStore, embedder: Embedder, *, max_text_chars: int = 4000
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.max_text_chars = max_text_chars

    async def remember(self, tenant: str, user: str, namespace: str, text: str) -> Item:
        """Store `text` (or find it stored already); EmbeddingsUnavailableError stores
        nothing."""
        check_namespace(namespace)
        text = text.strip()
        if not text:
            raise InvalidArgumentError([FieldViolation("text", "must not be empty")])
        if len(text) > self.max_text_chars:
            raise InvalidArgumentError(
                [FieldViolation("text", f"is longer than {self.max_text_chars} characters")]
            )
        await self.store.check_space(self.embedder.space)
        vectors = await self.embedder.embed([text])
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

    async def recall(
        self,
        tenant: str,
        user: str,
        query: str,
        *,
        namespaces: Sequence[str] = (),
        top_k: int = 5,
        threshold: float = -1.0,
    ) -> list[Hit]:
        """The user's memories nearest in meaning to `query` (none of anyone else's)."""
        for namespace in namespaces:
            check_namespace(namespace, "namespaces")
        if top_k <= 0 or not query.strip():
            return []
        vectors = await self.embedder.embed([query[: self.max_text_chars]])
        return await self.store.search(
            Scope(tenant, "memory", user, tuple(namespaces)),
            vectors[0],
            top_k=top_k,
            threshold=threshold,
            query_text=query,
            space=self.embedder.space,
        )

    async def list_memories(
        self, tenant: str, user: str, namespace: str = "", *, limit: int = 100, after: str = ""
    ) -> list[Item]:
        namespaces = (check_namespace(namespace),) if namespace else ()
        scope = Scope(tenant, "memory", user, namespaces)
        return await self.store.page(scope, limit=max(1, min(limit, MAX_LIST)), after=after)

    async def forget(self, tenant: str, user: str, memory_id: str) -> None:
        """Delete one memory of the user; MemoryNotFoundError when there is none."""
        gone = await self.store.delete(Scope(tenant, "memory", user, item_ids=(memory_id,)))
        if not gone:
            raise MemoryNotFoundError("memory", memory_id)

    async def forget_user(self, tenant: str, user: str) -> int:
        """Delete every memory of the user in the tenant; how many there were."""
        return await self.store.delete(Scope(tenant, "memory", user))


async def reindex(store: KnowledgeStore, embedder: Embedder, *, batch: int = 256) -> int:
    """Re-embed every stored item with `embedder` and make its space the store's; how many
    items were re-embedded. Run it with writes stopped (`agentd memory reindex`)."""
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
