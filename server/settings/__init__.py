"""Service settings, read from `AGENTD_*` environment variables, in sections by concern:
the process (`service`), the model (`model`), the engine and its limits (`engine`), tools
(`tools`), toolsets from a file (`toolsets`), where state lives (`storage`), who may call
(`access`), the memory of conversations (`conversations`), what a task tree's artifacts
may hold (`artifacts`), agents working together (`teams`), long-term memory and
knowledge bases (`memory`), memory shared between users and extracted from turns
(`memory`), reranking knowledge search (`rerank`) and A2A (`a2a`)."""

from __future__ import annotations

from server.settings.a2a import A2ASettings
from server.settings.access import AccessSettings
from server.settings.artifacts import ArtifactSettings
from server.settings.conversations import ConversationSettings
from server.settings.engine import EngineSettings
from server.settings.memory import MemoryExtractionSettings, MemorySettings
from server.settings.model import ModelSettings
from server.settings.rerank import RerankSettings
from server.settings.service import ServiceSettings
from server.settings.storage import StorageSettings
from server.settings.teams import TeamSettings
from server.settings.tools import ToolSettings, parse_cache_seconds
from server.settings.toolsets import ToolsetSettings


class Settings(
    ServiceSettings,
    ModelSettings,
    EngineSettings,
    ToolSettings,
    ToolsetSettings,
    StorageSettings,
    AccessSettings,
    ConversationSettings,
    ArtifactSettings,
    TeamSettings,
    MemorySettings,
    MemoryExtractionSettings,
    RerankSettings,
    A2ASettings,
):
    """Every setting has a default that lets `make run` work on a bare machine."""


__all__ = ["Settings", "parse_cache_seconds"]
