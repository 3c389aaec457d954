"""KnowledgeStore in process: items in a dict, cosine with numpy, words for keywords."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import numpy as np

from core.errors import EmbeddingModelChangedError
from records.knowledge.items import EmbeddingSpace, Hit, Item, Scope, Vectors
from records.paging import KeyCursor, Page, id_after
from stores.knowledge.base import fuse, item_page, plain
from stores.knowledge.keywords import index_terms, query_terms


class InMemoryKnowledgeStore:
    def __init__(self) -> None:
        self._items: dict[str, Item] = {}
        self._vectors: dict[str, Vectors] = {}
        self._space: EmbeddingSpace | None = None
        self._lock = asyncio.Lock()

    async def space(self) -> EmbeddingSpace | None:
        return self._space if self._items else None

    async def check_space(self, space: EmbeddingSpace) -> None:
        held = await self.space()
        if held is not None and held != space:
            raise EmbeddingModelChangedError(str(held), str(space))

    async def set_space(self, space: EmbeddingSpace) -> None:
        self._space = space

    async def add(
        self, items: Sequence[Item], vectors: Vectors, space: EmbeddingSpace
    ) -> list[Item]:
        if len(items) != len(vectors):
            raise ValueError("one vector per item")
        async with self._lock:
            await self.check_space(space)
            if items:
                self._space = space  # the first stored vector fixes it (a failed add: nothing)
            stored: list[Item] = []
            new: dict[str, tuple[Item, Vectors]] = {}
            for item, vector in zip(items, vectors, strict=True):
                same = self._duplicate(item, [x for x, _ in new.values()])
                if same is not None:
                    stored.append(same)
                    continue
                new[item.item_id] = (item, np.asarray(vector, np.float32).copy())
                stored.append(item)
            for item_id, (item, vector) in new.items():
                self._items[item_id] = item
                self._vectors[item_id] = vector
            return stored

    def _duplicate(self, item: Item, pending: Sequence[Item]) -> Item | None:
        if item.kind != "memory":
            return None
        for other in (*self._items.values(), *pending):
            if (
                other.kind == "memory"
                and other.tenant == item.tenant
                and other.user == item.user
                and other.namespace == item.namespace
                and other.content_hash == item.content_hash
            ):
                return other
        return None

    async def search(
        self,
        scope: Scope,
        vector: Vectors,
        *,
        top_k: int,
        threshold: float = -1.0,
        query_text: str = "",
        space: EmbeddingSpace,
    ) -> list[Hit]:
        await self.check_space(space)
        found = [i for i in self._items.values() if scope.admits(i)]
        if not found:
            return []
        matrix = np.stack([self._vectors[i.item_id] for i in found])
        scores = matrix @ np.asarray(vector, np.float32).reshape(-1)
        similarity = {i.item_id: float(s) for i, s in zip(found, scores, strict=True)}
        order = np.argsort(-scores, kind="stable")[: max(top_k * 4, top_k)]
        by_vector = [(found[n], float(scores[n])) for n in order]
        if not query_text.strip():
            return plain(by_vector, top_k, threshold)
        asked = set(query_terms(query_text))
        if not asked:
            return plain(by_vector, top_k, threshold)
        counted = [(len(asked.intersection(index_terms(i.text))), i) for i in found]
        by_keyword = [i for n, i in sorted(counted, key=lambda x: -x[0]) if n][: top_k * 4]
        return fuse(by_vector, by_keyword, similarity, top_k, threshold)

    async def page(
        self, scope: Scope, *, size: int = 100, after: KeyCursor | None = None
    ) -> Page[Item, KeyCursor]:
        start = id_after(after)
        found = sorted(
            (i for i in self._items.values() if scope.admits(i) and i.item_id > start),
            key=lambda i: i.item_id,
        )
        return item_page(found, size)

    async def count(self, scope: Scope) -> int:
        return sum(1 for i in self._items.values() if scope.admits(i))

    async def delete(self, scope: Scope) -> int:
        async with self._lock:
            gone = [i.item_id for i in self._items.values() if scope.admits(i)]
            for item_id in gone:
                del self._items[item_id]
                del self._vectors[item_id]
            return len(gone)

    async def scan(self, *, after: str = "", limit: int = 500) -> list[Item]:
        return sorted(
            (i for i in self._items.values() if i.item_id > after), key=lambda i: i.item_id
        )[:limit]

    async def set_vectors(self, item_ids: Sequence[str], vectors: Vectors) -> None:
        async with self._lock:
            for item_id, vector in zip(item_ids, vectors, strict=True):
                if item_id in self._items:
                    self._vectors[item_id] = np.asarray(vector, np.float32).copy()

    async def close(self) -> None:
        return None
