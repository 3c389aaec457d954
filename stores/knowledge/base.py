"""The knowledge store: items (memories, document chunks) and their vectors.

Contract (one suite runs it on every backend: tests/contract/test_knowledge.py):
- Every call is scoped to one tenant (`Scope.tenant`); nothing of another tenant is ever
  found, paged, deleted or counted. Within a tenant a scope narrows by kind, user,
  namespaces, document and ids.
- The store holds vectors of one embedding space (model and dimensions), fixed by the
  first vector stored: `add` records its space when the store holds no item (whatever
  was recorded before: a failed first add, or one with a misconfigured model, stores no
  vector and so binds nothing), and raises EmbeddingModelChangedError when it holds
  vectors of another space. `check_space` (which records nothing) and `search` raise it
  too; a search of another space in a store that holds nothing finds nothing. `space()`
  is None while no item is stored. `reindex` (`agent.knowledge.reindex`) re-embeds every
  item with `scan` and `set_vectors`, then `set_space`.
- `add` is all or nothing: every item is stored with its vector, or none (a failure
  leaves nothing half-written). A memory whose content hash equals one already stored in
  the same tenant, user and namespace is not stored twice: the stored one is returned in
  its place.
- `search` ranks by cosine similarity of the stored vector to the query vector; items
  below `threshold` are never returned. With `query_text`, items the keyword index finds
  (FTS5, tsvector, or words in memory) join the vector candidates (still only those at or
  above the threshold), and the result is ordered by reciprocal rank fusion of the two
  rankings (`Hit.fused`); ties keep the similarity order. At most `top_k` hits.
- `delete` removes the items of a scope with their vectors and keyword entries, leaving
  no trace in any table or cache of the process; it returns how many went.
- Methods may be called concurrently; a search sees each `add` entirely or not at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from records.knowledge.items import EmbeddingSpace, Hit, Item, Scope, Vectors
from records.paging import KeyCursor, Page, id_cursor

RRF_K = 60
"""The constant of reciprocal rank fusion: score = Σ 1 / (RRF_K + rank)."""


class KnowledgeStore(Protocol):
    async def space(self) -> EmbeddingSpace | None:
        """The embedding space the stored vectors are of (None while no item is stored)."""
        ...

    async def check_space(self, space: EmbeddingSpace) -> None:
        """EmbeddingModelChangedError when the stored vectors are of another space."""
        ...

    async def set_space(self, space: EmbeddingSpace) -> None:
        """Record `space` as the store's, whatever it held (after a re-index)."""
        ...

    async def add(
        self, items: Sequence[Item], vectors: Vectors, space: EmbeddingSpace
    ) -> list[Item]: ...

    async def search(
        self,
        scope: Scope,
        vector: Vectors,
        *,
        top_k: int,
        threshold: float = -1.0,
        query_text: str = "",
        space: EmbeddingSpace,
    ) -> list[Hit]: ...

    async def page(
        self, scope: Scope, *, size: int = 100, after: KeyCursor | None = None
    ) -> Page[Item, KeyCursor]:
        """A page of `size` items of the scope by id (ids grow with time), those after the
        cursor `after` (its id), with the cursor of the next page when more follow."""
        ...

    async def count(self, scope: Scope) -> int: ...

    async def delete(self, scope: Scope) -> int: ...

    async def scan(self, *, after: str = "", limit: int = 500) -> list[Item]:
        """Every item of every tenant by id, for re-indexing."""
        ...

    async def set_vectors(self, item_ids: Sequence[str], vectors: Vectors) -> None: ...

    async def close(self) -> None: ...


def item_page(found: Sequence[Item], size: int) -> Page[Item, KeyCursor]:
    """The page of `found` (read as `size` + 1, in id order)."""
    return Page.cut(found, size, lambda i: id_cursor(i.item_id))


def fuse(
    by_vector: Sequence[tuple[Item, float]],
    by_keyword: Sequence[Item],
    similarity: dict[str, float],
    top_k: int,
    threshold: float,
) -> list[Hit]:
    """Reciprocal rank fusion of the vector ranking and the keyword ranking, of the items
    whose similarity is at least `threshold` (the keyword ones' from `similarity`)."""
    scores: dict[str, float] = {}
    matched: dict[str, list[str]] = {}
    items: dict[str, Item] = {}
    for rank, (item, score) in enumerate(x for x in by_vector if x[1] >= threshold):
        scores[item.item_id] = scores.get(item.item_id, 0.0) + 1.0 / (RRF_K + rank + 1)
        matched.setdefault(item.item_id, []).append("vector")
        items[item.item_id] = item
        similarity.setdefault(item.item_id, score)
    kept = [i for i in by_keyword if similarity.get(i.item_id, -2.0) >= threshold]
    for rank, item in enumerate(kept):
        scores[item.item_id] = scores.get(item.item_id, 0.0) + 1.0 / (RRF_K + rank + 1)
        matched.setdefault(item.item_id, []).append("keyword")
        items[item.item_id] = item
    order = sorted(scores, key=lambda i: (-scores[i], -similarity[i], i))[:top_k]
    return [Hit(items[i], similarity[i], scores[i], tuple(matched[i])) for i in order]


def plain(by_vector: Sequence[tuple[Item, float]], top_k: int, threshold: float) -> list[Hit]:
    """The vector ranking alone, cut at the threshold."""
    return [Hit(i, s, 0.0, ("vector",)) for i, s in by_vector if s >= threshold][:top_k]
