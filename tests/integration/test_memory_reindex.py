"""A changed embedding model is refused until `agentd memory reindex` re-embeds the store."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent.knowledge.memories import LongTermMemory
from agent.llm.embeddings import OpenAIEmbedder
from agent.llm.fakes.server import FakeOpenAIServer
from core.errors import EmbeddingModelChangedError
from server.commands.cli import main
from stores.knowledge.sqlite import SqliteKnowledgeStore
from stores.sql.engine import create_engine, migrate


async def test_a_new_model_is_refused_until_reindexed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'agentd.db'}"
    await migrate(url)
    engine = create_engine(url)
    async with FakeOpenAIServer() as llm:
        old = OpenAIEmbedder("small", 64, base_url=llm.base_url, send_dimensions=True)
        new = OpenAIEmbedder("large", 128, base_url=llm.base_url, send_dimensions=True)
        store = SqliteKnowledgeStore(engine)
        await LongTermMemory(store, old).remember("acme", "alice", "default", "likes green tea")
        with pytest.raises(EmbeddingModelChangedError, match="small \\(64 dimensions\\)"):
            await LongTermMemory(store, new).recall("acme", "alice", "tea")

        for name, value in {
            "AGENTD_DATABASE_URL": url,
            "AGENTD_EMBEDDING_MODEL": "large",
            "AGENTD_EMBEDDING_DIMENSIONS": "128",
            "AGENTD_EMBEDDING_SEND_DIMENSIONS": "true",
            "AGENTD_EMBEDDING_BASE_URL": llm.base_url,
        }.items():
            monkeypatch.setenv(name, value)
        assert await asyncio.to_thread(main, ["memory", "status"]) == 0
        assert (
            "small (64 dimensions); configured: large (128 dimensions)" in capsys.readouterr().out
        )
        assert await asyncio.to_thread(main, ["memory", "reindex"]) == 0
        assert "re-embedded 1 items" in capsys.readouterr().out

        hits = await LongTermMemory(SqliteKnowledgeStore(engine), new).recall(
            "acme", "alice", "green tea"
        )
        assert [h.item.text for h in hits] == ["likes green tea"]
        await old.close()
        await new.close()
    await engine.dispose()
