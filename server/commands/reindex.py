"""`agentd memory reindex`: re-embed every stored memory and document chunk with the
embedding model configured now (AGENTD_EMBEDDING_*), after which the store accepts it.
Run it with the servers stopped (or no memory writes going on)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any


def add_memory_parser(sub: Any, *, client_verbs: bool = True) -> None:
    """`agentd memory reindex|status`, and (unless only the server's commands are parsed)
    the client's `list|search|forget` (`clients.knowledge_cli`)."""
    memory = sub.add_parser("memory", help="long-term memory and knowledge base maintenance")
    memory.add_argument("--database-url", help="default: AGENTD_DATABASE_URL")
    memory_sub = memory.add_subparsers(dest="memory_command", required=True)
    memory_sub.add_parser("reindex", help="re-embed every item with the configured embedding model")
    memory_sub.add_parser("status", help="the embedding model the store's vectors are of")
    if client_verbs:
        from clients.knowledge_cli import add_memory_verbs

        add_memory_verbs(memory_sub)


async def _reindex(url: str, command: str) -> int:
    from agent.knowledge.memories import reindex
    from core.errors import EmbeddingsUnavailableError
    from server.settings import Settings
    from server.wiring.knowledge import build_embedder, open_store
    from stores.sql.database import Database
    from stores.sql.engine import migrate

    settings = Settings(database_url=url)
    await migrate(url)
    database = Database.open(url)
    embedder = build_embedder(settings)
    try:
        store, why = await open_store(database)
        if store is None:
            print(f"agentd memory: {why}", file=sys.stderr)
            return 2
        held = await store.space()
        if command == "status":
            wanted = f"; configured: {embedder.space}" if embedder is not None else ""
            print(f"vectors of: {held or 'nothing yet'}{wanted}")
            return 0
        if embedder is None:
            print("agentd memory: set AGENTD_EMBEDDING_MODEL first", file=sys.stderr)
            return 2
        try:
            count = await reindex(store, embedder)
        except EmbeddingsUnavailableError as error:
            endpoint = settings.embedding_base_url or settings.llm_base_url or "OpenAI's own"
            print(
                f"agentd memory: nothing was re-embedded: {error.message} (endpoint: "
                f"{endpoint}; AGENTD_EMBEDDING_BASE_URL, AGENTD_EMBEDDING_DIMENSIONS)",
                file=sys.stderr,
            )
            return 1
        print(f"re-embedded {count} items: {held or 'nothing'} -> {embedder.space}")
        return 0
    finally:
        if embedder is not None:
            await embedder.close()
        await database.close()


def run_memory(args: argparse.Namespace, url: str) -> int:
    from core.errors import AgentdError

    try:
        return asyncio.run(_reindex(url, args.memory_command))
    except AgentdError as error:
        print(f"agentd memory: {error.message}", file=sys.stderr)
        return 1
