"""Long-term memory on a server: the embedder from the settings, the knowledge store on
the server's database (SQLite, or PostgreSQL with pgvector), the `remember` and `recall`
tools, and automatic recall. Off, said in one line at start-up, without an embedding
model or on a PostgreSQL without the `vector` extension; everything else runs then."""

from __future__ import annotations

from typing import TYPE_CHECKING

import structlog

from agent.llm.base import Model
from agent.llm.roles import ModelRoles
from server.services.memory import MemoryFeature
from server.settings import Settings
from server.wiring.models import model_factory
from server.wiring.role_table import role_table
from stores.build import DurableStores
from stores.sql.database import Database
from tools.registry import ToolRegistry

if TYPE_CHECKING:  # numpy, the OpenAI SDK and pgvector load only when memory is on
    from agent.knowledge.bases import KnowledgeAdmin
    from agent.knowledge.documents import KnowledgeBases
    from agent.knowledge.extraction import MemoryExtraction
    from agent.knowledge.ingestion import IngestionRunner
    from agent.knowledge.memories import LongTermMemory
    from agent.knowledge.rerank import KnowledgeSearch
    from agent.llm.embeddings import Embedder
    from agent.llm.rerank import Reranker
    from stores.knowledge.base import KnowledgeStore
    from stores.knowledge.catalog import SqlKnowledgeCatalog

log = structlog.get_logger(__name__)


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


def build_reranker(settings: Settings) -> Reranker | None:
    if not settings.rerank_model:
        return None
    from agent.llm.rerank import OpenAIReranker

    return OpenAIReranker(
        settings.rerank_model,
        base_url=settings.rerank_base_url or settings.embedding_base_url or settings.llm_base_url,
        api_key=settings.rerank_api_key or settings.embedding_api_key or settings.llm_api_key,
        timeout_seconds=settings.rerank_timeout_seconds,
        max_attempts=settings.rerank_max_attempts,
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
    durable: DurableStores,
    registry: ToolRegistry,
    embedder: Embedder | None = None,
    *,
    models: ModelRoles | None = None,
) -> MemoryFeature:
    """Long-term memory for the server (its tools registered), or off with the reason;
    extraction's operations are admitted and audited by the registry."""
    embedder = embedder or build_embedder(settings)
    if embedder is None:
        why = "no embedding model is configured (AGENTD_EMBEDDING_MODEL)"
        log.info("long-term memory is off: " + why)
        return MemoryFeature(None, why)
    store, why = await open_store(durable.database)
    if store is None:
        log.warning("long-term memory is off: " + why)
        await embedder.close()
        return MemoryFeature(None, why)
    from agent.knowledge.memories import LongTermMemory
    from agent.knowledge.recall import AutomaticRecall
    from agent.knowledge.tools import SearchKnowledge, memory_tools

    memory = LongTermMemory(
        store,
        embedder,
        max_text_chars=settings.memory_max_text_chars,
        similar=settings.memory_dedupe_similarity,
        role_table=role_table(settings),
    )
    knowledge, search, bases = build_knowledge(settings, store, embedder, durable)
    for tool in [*memory_tools(memory), SearchKnowledge(search, registry.policy)]:
        registry.register(tool)
    log.info(
        "long-term memory is on",
        embedding_model=str(embedder.space),
        rerank_model=settings.rerank_model or "(none)",
    )
    recall = AutomaticRecall(memory, settings.memory_recall_top_k)
    extraction = build_extraction(settings, memory, registry, models)
    return MemoryFeature(
        memory, recall=recall, knowledge=knowledge, bases=bases, extraction=extraction
    )


def build_knowledge(
    settings: Settings, store: KnowledgeStore, embedder: Embedder, durable: DurableStores
) -> tuple[KnowledgeBases, KnowledgeSearch, KnowledgeAdmin]:
    """Knowledge bases over `store`: ingestion, search (reranked when a model is set) and
    the admin operations of the RPCs."""
    from agent.knowledge.bases import KnowledgeAdmin
    from agent.knowledge.documents import KnowledgeBases
    from agent.knowledge.rerank import KnowledgeSearch
    from stores.knowledge.catalog import SqlKnowledgeCatalog

    catalog = SqlKnowledgeCatalog(durable.database.engine)
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
    search = KnowledgeSearch(
        knowledge,
        build_reranker(settings),
        default=settings.knowledge_rerank,
        candidates_factor=settings.rerank_candidates_factor,
        max_candidates=settings.rerank_max_candidates,
    )
    bases = KnowledgeAdmin(
        catalog,
        knowledge,
        role_table(settings),
        searcher=search,
        runner=ingestion_runner(settings, catalog, knowledge),
    )
    bases.runner.start()
    return knowledge, search, bases


def build_extraction(
    settings: Settings,
    memory: LongTermMemory,
    registry: ToolRegistry,
    models: ModelRoles | None,
) -> MemoryExtraction:
    """Extraction at the end of turns, by AGENTD_MEMORY_EXTRACTION_MODEL (a sibling of the
    server's model) or else by each task's executor model."""
    from agent.knowledge.extraction import ExtractionLimits, MemoryExtraction

    model: Model | None = None
    if settings.memory_extraction_model:
        make = model_factory(models)
        if make is None:
            log.warning(
                "AGENTD_MEMORY_EXTRACTION_MODEL is ignored: the server's model is not "
                "an OpenAI-compatible one; tasks' own models extract"
            )
        else:
            model = make(settings.memory_extraction_model, 0.0, None)
    limits = ExtractionLimits(
        max_operations=settings.memory_extraction_max_operations,
        max_text_chars=settings.memory_extraction_max_text_chars,
        nearest=settings.memory_extraction_nearest,
        timeout_seconds=settings.memory_extraction_timeout_seconds,
    )
    return MemoryExtraction(memory, registry, model=model, limits=limits)
