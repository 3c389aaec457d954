"""`Settings`: every section of the settings in one class, what the server reads (each
section, in `server.settings.sections`, reads its own `AGENTD_*` variables)."""

from __future__ import annotations

from server.settings.sections.a2a import A2ASettings, WebhookSettings
from server.settings.sections.access import AccessSettings
from server.settings.sections.artifacts import ArtifactSettings
from server.settings.sections.conversations import ConversationSettings
from server.settings.sections.engine import EngineSettings
from server.settings.sections.guardrails import GuardrailSettings
from server.settings.sections.http.address import HttpSettings
from server.settings.sections.intake.schedules import ScheduleSettings
from server.settings.sections.keys import KeySettings
from server.settings.sections.knowledge.memory import MemoryExtractionSettings, MemorySettings
from server.settings.sections.knowledge.rerank import RerankSettings
from server.settings.sections.model import ModelSettings
from server.settings.sections.service import ServiceSettings
from server.settings.sections.storage import StorageSettings
from server.settings.sections.teams import TeamSettings
from server.settings.sections.tools import ToolSettings
from server.settings.sections.toolsets import ToolsetSettings
from server.settings.sections.traces import TraceSettings
from server.settings.sections.usage import UsageSettings


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
    HttpSettings,
    GuardrailSettings,
    UsageSettings,
    KeySettings,
    WebhookSettings,
    TraceSettings,
    ScheduleSettings,
):
    """Every setting has a default that lets `make run` work on a bare machine."""
