"""Knowledge base documents: parsed (plain text, Markdown, HTML, PDF), cut into chunks of
about `chunk_tokens` tokens that share `overlap` tokens with the one before, embedded in
batches and stored as `chunk` items of the knowledge base (`Item.namespace` is its id).

Tokens here are the text's whitespace-separated words (an embedding model's own tokens
are about 1.3 per English word) and each Chinese, Japanese or Korean character (Chinese and
Japanese put no spaces between words): counting them needs no model, and a chunk never splits
a word of up to MAX_TOKEN_CHARS characters (a longer run without blanks is cut in pieces).
Ingestion reports progress (with the total, counted first) after each batch and is all or
nothing: when anything fails (the embeddings endpoint, the store, a progress
callback that cancels it), the chunks already stored are deleted again — unless the
callback raises `Abandoned` (another process took the job over and owns those chunks).
Memory stays bounded by one batch of chunks and their vectors, whatever the document's
size (the document's text itself is held once).
"""

from __future__ import annotations

import asyncio
import codecs
import itertools
import re
from collections.abc import Awaitable, Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from html.parser import HTMLParser

from agent.knowledge.memories import new_item_id
from agent.llm.embeddings import Embedder
from core.errors import FieldViolation, InvalidArgumentError, RequestTooLargeError
from core.files import pdf_text
from records.knowledge.items import Hit, Item, Scope, content_hash
from stores.knowledge.base import KnowledgeStore

MEDIA_TYPES = ("text/plain", "text/markdown", "text/html", "application/pdf")
BATCH = 256
"""Chunks embedded (and stored) at a time."""
FETCH_ROUNDS = 4
"""How many times a search asks again, for more, when chunks of documents that are not
READY took places in the ranking."""

ReadyDocuments = Callable[[str, Collection[str]], Awaitable[set[str]]]
"""(tenant, document ids) -> those of the ids that are READY (the catalog's)."""


class Abandoned(Exception):  # noqa: N818 - a signal, not a failure of the ingestion
    """Raised by a progress callback whose job another process holds now: the ingestion
    stops and leaves the chunks stored so far to that process."""


class _Text(HTMLParser):
    """The text of an HTML document: scripts, styles and templates dropped, blocks on
    lines of their own."""

    SKIP = frozenset({"script", "style", "template", "noscript"})
    BLOCKS = frozenset({"p", "div", "br", "li", "h1", "h2", "h3", "h4", "h5", "h6", "tr"})
    HEAD = frozenset({"head", "title", "meta", "link", "base", "script", "style", "noscript"})
    """Tags of the head: any other (`<body>`, `<p>`…) ends it, as HTML5's optional
    `</head>` does."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skipping = 0
        self._in_head = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "head":
            self._in_head = True
        elif tag not in self.HEAD and tag != "template":
            self._in_head = False
        if tag in self.SKIP:
            self._skipping += 1
        elif tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "head":
            self._in_head = False
        if tag in self.SKIP and self._skipping:
            self._skipping -= 1

    def handle_data(self, data: str) -> None:
        if not self._skipping and not self._in_head:
            self.parts.append(data)


def parse(content: bytes, media_type: str) -> str:
    """The document's text, without NUL characters (PostgreSQL's text cannot hold them,
    and they mean nothing to a search); InvalidArgumentError for a type or content it
    cannot read. CPU-bound: async callers run it in a worker thread."""
    if media_type == "application/pdf":
        return pdf_text(content).replace("\x00", "")
    if media_type not in MEDIA_TYPES:
        raise InvalidArgumentError(
            [FieldViolation("media_type", f"must be one of {', '.join(MEDIA_TYPES)}")]
        )
    text = decode(content)
    if media_type == "text/html":
        parser = _Text()
        parser.feed(text)
        parser.close()
        text = "".join(parser.parts)
    return text.replace("\x00", "")


def decode(content: bytes) -> str:
    """Text as UTF-8, or as UTF-16 or UTF-32 when it starts with their byte order mark
    (the mark dropped); bytes that do not decode become U+FFFD."""
    for bom, codec in _BOMS:
        if content.startswith(bom):
            return content[len(bom) :].decode(codec, errors="replace")
    return content.decode("utf-8", errors="replace")


_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16's: it starts the same
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


_CJK = (
    "\u1100-\u11ff\u2e80-\u2fdf\u3001-\u303f\u3040-\u30ff\u3100-\u318f\u31a0-\u31ff"
    "\u3200-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef"
    "\U00020000-\U0003ffff"
)
MAX_TOKEN_CHARS = 24
_TOKEN = re.compile(f"[^\\s{_CJK}]{{1,{MAX_TOKEN_CHARS}}}|[{_CJK}]")
"""A token: one CJK character (Han, kana, Hangul, their punctuation and full-width
forms), or a run of other characters up to a blank or a CJK character — at most
MAX_TOKEN_CHARS of them: a longer run (Thai, base64, minified JSON, a long URL) is cut
into tokens that touch, so that a chunk stays bounded (chunk_tokens × 25 characters)."""


def chunks(text: str, chunk_tokens: int, overlap: int) -> Iterator[str]:
    """The text in chunks of `chunk_tokens` tokens, each sharing `overlap` with the last.
    Tokens that stood apart are joined by one space, those that touched (CJK characters,
    a CJK character and a Latin word) are joined as they stood."""
    if not 0 <= overlap < chunk_tokens:
        raise ValueError("the overlap must be smaller than a chunk")
    window: list[str] = []  # each token with the space that stood before it, if any
    fresh = 0  # tokens of the window no chunk holds yet
    end = 0
    for match in _TOKEN.finditer(text):
        window.append(match.group() if match.start() == end else " " + match.group())
        end = match.end()
        fresh += 1
        if len(window) == chunk_tokens:
            yield "".join(window).lstrip(" ")
            window, fresh = window[chunk_tokens - overlap :], 0
    if fresh:
        yield "".join(window).lstrip(" ")


def _take(pieces: Iterator[str], count: int) -> list[str]:
    """The next `count` chunks (fewer at the end; none when there are no more)."""
    return list(itertools.islice(pieces, count))


@dataclass(frozen=True, slots=True)
class Progress:
    document_id: str
    chunks_done: int
    done: bool = False
    chunks_total: int = 0


@dataclass(frozen=True, slots=True)
class Citation:
    """Where a retrieved passage comes from."""

    knowledge_base_id: str
    document_id: str
    chunk_index: int
    score: float
    """Cosine similarity of the chunk to the question."""

    @classmethod
    def of(cls, hit: Hit) -> Citation:
        item = hit.item
        return cls(item.namespace, item.document_id, item.chunk_index, round(hit.similarity, 4))


class KnowledgeBases:
    """Documents in, cited passages out, over a knowledge store and an embedder."""

    def __init__(
        self,
        store: KnowledgeStore,
        embedder: Embedder,
        *,
        chunk_tokens: int = 300,
        overlap: int = 40,
        max_document_bytes: int = 25 * 1024 * 1024,
        top_k: int = 5,
        threshold: float = 0.7,
        ready: ReadyDocuments | None = None,
    ) -> None:
        self.store, self.embedder = store, embedder
        self.ready = ready
        """When set, searches keep only the chunks of READY documents."""
        self.chunk_tokens, self.overlap = chunk_tokens, overlap
        self.max_document_bytes = max_document_bytes
        self.top_k, self.threshold = top_k, threshold

    async def add_document(
        self,
        tenant: str,
        knowledge_base_id: str,
        content: bytes,
        media_type: str,
        *,
        progress: Callable[[Progress], Awaitable[None]] | None = None,
        document_id: str = "",
    ) -> tuple[str, int]:
        """Parse, chunk, embed and store a document; (its id, its chunks)."""
        if len(content) > self.max_document_bytes:
            raise RequestTooLargeError("content", len(content), self.max_document_bytes)
        # parsing and cutting are CPU-bound (seconds for a large PDF): in a worker thread,
        # so that the event loop goes on serving other calls meanwhile
        text = await asyncio.to_thread(parse, content, media_type)
        del content
        document_id = document_id or new_item_id("doc_")
        await self.store.check_space(self.embedder.space)
        total = await asyncio.to_thread(self._count, text)
        if not total:
            raise InvalidArgumentError([FieldViolation("content", "has no text to index")])
        pieces = chunks(text, self.chunk_tokens, self.overlap)
        done = 0
        try:
            if progress is not None:
                await progress(Progress(document_id, 0, chunks_total=total))
            while batch := await asyncio.to_thread(_take, pieces, BATCH):
                done = await self._store(tenant, knowledge_base_id, document_id, batch, done)
                if progress is not None and len(batch) == BATCH:
                    await progress(Progress(document_id, done, chunks_total=total))
        except Abandoned:
            raise
        except BaseException:
            await self.store.delete(Scope(tenant, "chunk", document_id=document_id))
            raise
        if progress is not None:
            await progress(Progress(document_id, done, done=True, chunks_total=total))
        return document_id, done

    def _count(self, text: str) -> int:
        return sum(1 for _ in chunks(text, self.chunk_tokens, self.overlap))

    async def _store(
        self, tenant: str, kb: str, document_id: str, batch: Sequence[str], first: int
    ) -> int:
        vectors = await self.embedder.embed(batch)
        now = datetime.now(UTC)
        items = [
            Item(
                new_item_id("chk_"),
                tenant,
                "chunk",
                "",
                kb,
                text,
                content_hash(text),
                now,
                document_id,
                first + n,
            )
            for n, text in enumerate(batch)
        ]
        await self.store.add(items, vectors, self.embedder.space)
        return first + len(batch)

    async def delete_document(self, tenant: str, document_id: str) -> int:
        return await self.store.delete(Scope(tenant, "chunk", document_id=document_id))

    async def search(
        self,
        tenant: str,
        knowledge_base_ids: Sequence[str],
        question: str,
        *,
        top_k: int | None = None,
        threshold: float | None = None,
    ) -> list[Hit]:
        """Hybrid search: chunks at or above the cosine threshold, fused with keyword hits
        by reciprocal rank; nothing for a knowledge base the caller did not name."""
        if not knowledge_base_ids or not question.strip():
            return []
        vector = (await self.embedder.embed([question[:4000]]))[0]
        scope = Scope(tenant, "chunk", namespaces=tuple(knowledge_base_ids))
        want = top_k or self.top_k
        fetch, kept = want, []
        for _ in range(FETCH_ROUNDS):
            hits = await self.store.search(
                scope,
                vector,
                top_k=fetch,
                threshold=self.threshold if threshold is None else threshold,
                query_text=question,
                space=self.embedder.space,
            )
            if self.ready is None:
                return hits
            # asked after the search: a document replaced meanwhile is no longer READY
            ready = await self.ready(tenant, {h.item.document_id for h in hits})
            kept = [h for h in hits if h.item.document_id in ready]
            if len(kept) >= want or len(hits) < fetch:
                break
            fetch *= 4
        return kept[:want]
