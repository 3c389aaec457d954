"""At start the metrics' agent label is configured from the settings: the agents of
AGENTD_AGENTS_DIR by their id always (as the files stand: `AgentFiles.defines`), the first
AGENTD_METRICS_AGENT_LABELS other ids by theirs, every later one as `other`."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest

from agent import metrics
from server.settings import Settings
from server.wiring.agents import start_agents
from stores.agents.memory import InMemoryAgentStore


async def test_start_up_names_file_agents_and_bounds_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    labels = metrics.BoundedLabels(metrics.AGENT_LABELS_DEFAULT)
    monkeypatch.setattr(metrics, "AGENT_LABELS", labels)
    (tmp_path / "filed.yaml").write_text("id: filed\n")
    settings = Settings(agents_dir=tmp_path, metrics_agent_labels=1)
    background: list[asyncio.Task[None]] = []
    start_agents(settings, InMemoryAgentStore(), background)
    try:
        assert [labels(a) for a in ("api-one", "api-two", "filed", "")] == [
            "api-one",
            "other",
            "filed",
            "default",
        ]
    finally:
        for task in background:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


def test_without_agent_files_only_the_bound_names_agents(monkeypatch: pytest.MonkeyPatch) -> None:
    labels = metrics.BoundedLabels(metrics.AGENT_LABELS_DEFAULT)
    monkeypatch.setattr(metrics, "AGENT_LABELS", labels)
    start_agents(Settings(metrics_agent_labels=0), InMemoryAgentStore(), [])
    assert (labels("api-one"), labels("")) == ("other", "default")
