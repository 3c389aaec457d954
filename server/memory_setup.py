"""Long-term memory on a server: the embedder from the settings, the knowledge store on
the server's database (SQLite, or PostgreSQL with pgvector), the `remember` and `recall`
tools, and automatic recall. Off, said in one line at start-up, without an embedding
model or on a PostgreSQL without the `vector` extension; everything else runs then."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import structlog

from core.errors import MemoryUnavailableError
from server.settings import Settings
from stores.sql.database import Database
from tools.registry import ToolRegistry

if TYPE_CHECKING:  # numpy, the OpenAI SDK and pgvector load only when memory is on
    from agent.knowledge.bases import KnowledgeAdmin
    from agent.knowledge.documents import KnowledgeBases
    from agent.knowledge.ingestion import IngestionRunner
    from agent.knowledge.memories import LongTermMemory
    from agent.knowledge.recall import AutomaticRecall
    from agent.llm.embeddings import Embedder
    from stores.knowledge.base import KnowledgeStore
    from stores.knowledge.catalog import SqlKnowledgeCatalog

log = structlog.get_logger(__name__)


@dataclass
class MemoryFeature:
    """Long-term memory as the server has it: on (`memory`), or off and why."""

    memory: LongTermMemory | None
    why_off: str = ""
    recall: AutomaticRecall | None = None
    knowledge: KnowledgeBases | None = None
    bases: KnowledgeAdmin | None = None

    def require(self) -> LongTermMemory:
        """The memory; MemoryUnavailableError (FAILED_PRECONDITION) when it is off."""
        if self.memory is None:
            raise MemoryUnavailableError(self.why_off)
        return self.memory

    def require_bases(self) -> KnowledgeAdmin:
        """The knowledge bases; MemoryUnavailableError when memory is off."""
        if self.bases is None:
            raise MemoryUnavailableError(self.why_off)
        return self.bases

    async def close(self) -> None:
        if self.bases is not None:  # hands its running background jobs back to the queue
            await self.bases.runner.close()
        if self.memory is not None:
            await self.memory.embedder.close()
            await self.memory.store.close()


def build_embedder(settings: Settings) -> Embedder | None:
    if not settings.embedding_model:
        return None
    from agent.llm.embeddings import OpenAIEmbedder

    return OpenAIEmbedder(
        settings.embedding_model,
        settings.embedding_dimensions,
        base_url=settings.embedding_base_url or settings.llm_base_url,
        api_key=settings.embedding_api_key or settings.llm_api_key,
        batch_size=settings.embedding_batch_size,
        send_dimensions=settings.embedding_send_dimensions,
        timeout_seconds=settings.embedding_timeout_seconds,
        max_attempts=settings.embedding_max_attempts,
    )


async def open_store(database: Database) -> tuple[KnowledgeStore | None, str]:
    """The knowledge store on the server's database, or why there is none."""
    from stores.knowledge.pgvector import PgVectorKnowledgeStore, vector_ready
    from stores.knowledge.sqlite import SqliteKnowledgeStore

    if database.dialect == "sqlite":
        return SqliteKnowledgeStore(database.engine), ""
    why = await vector_ready(database.engine)
    return (None, why) if why else (PgVectorKnowledgeStore(database.engine), "")


def ingestion_runner(
    settings: Settings, catalog: SqlKnowledgeCatalog, knowledge: KnowledgeBases
) -> IngestionRunner:
    from agent.knowledge.ingestion import IngestionRunner
    from stores.knowledge.sql_jobs import SqlIngestionJobs
    from stores.leases.base import new_replica_id

    return IngestionRunner(
        SqlIngestionJobs(catalog.engine),
        catalog,
        knowledge,
        owner=settings.replica_id or new_replica_id(),
        parallel=settings.knowledge_ingestion_parallel,
        lease_seconds=settings.knowledge_ingestion_lease_seconds,
        attempts=settings.knowledge_ingestion_attempts,
        max_waiting=settings.knowledge_ingestion_max_waiting,
        reclaim_own=bool(settings.replica_id),
    )


async def open_memory(
    settings: Settings,
    database: Database,
    registry: ToolRegistry,
    embedder: Embedder | None = None,
) -> MemoryFeature:
    """Long-term memory for the server (its tools registered), or off with the reason."""
    embedder = embedder or build_embedder(settings)
    if embedder is None:
        why = "no embedding model is configured (AGENTD_EMBEDDING_MODEL)"
        log.info("long-term memory is off: " + why)
        return MemoryFeature(None, why)
    store, why = await open_store(database)
    if store is None:
        log.warning("long-term memory is off: " + why)
        await embedder.close()
        return MemoryFeature(None, why)
    from agent.knowledge.bases import KnowledgeAdmin
    from agent.knowledge.documents import KnowledgeBases
    from agent.knowledge.memories import LongTermMemory
    from agent.knowledge.recall import AutomaticRecall
    from agent.knowledge.tools import SearchKnowledge, memory_tools
    from stores.knowledge.catalog import SqlKnowledgeCatalog

    catalog = SqlKnowledgeCatalog(database.engine)

    memory = LongTermMemory(store, embedder, max_text_chars=settings.memory_max_text_chars)
    knowledge = KnowledgeBases(
        store,
        embedder,
        chunk_tokens=settings.knowledge_chunk_tokens,
        overlap=settings.knowledge_chunk_overlap,
        max_document_bytes=settings.knowledge_max_document_bytes,
        top_k=settings.knowledge_top_k,
        threshold=settings.knowledge_score_threshold,
        ready=catalog.ready_documents,
    )
    bases = KnowledgeAdmin(
        catalog,
        knowledge,
        settings.knowledge_admin_roles,
        ingestion_runner(settings, catalog, knowledge),
    )
    bases.runner.start()
    for tool in [*memory_tools(memory), SearchKnowledge(knowledge)]:
        registry.register(tool)
    log.info("long-term memory is on", embedding_model=str(embedder.space))
    recall = AutomaticRecall(memory, settings.memory_recall_top_k)
    return MemoryFeature(memory, recall=recall, knowledge=knowledge, bases=bases)
