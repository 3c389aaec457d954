"""`Settings`: every section of the settings in one class, what the server reads (each
section, in `server.settings.sections`, reads its own `AGENTD_*` variables)."""

from __future__ import annotations

from pydantic import model_validator

from server.settings.sections.a2a import A2ASettings, WebhookSettings
from server.settings.sections.access import AccessSettings
from server.settings.sections.artifacts import ArtifactSettings
from server.settings.sections.conversations import ConversationSettings
from server.settings.sections.engine import EngineSettings
from server.settings.sections.guardrails import GuardrailSettings
from server.settings.sections.http.address import REPLAY_MARGIN_SECONDS, HttpSettings
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

    @model_validator(mode="after")
    def _deliveries_outlive_replays(self) -> Settings:
        """A trigger delivery's record is kept while it could be replayed: its timestamp
        passes the window up to the tolerance ahead, so for twice it (plus a margin for
        the sweep's and the clocks' slack). An older replay is refused by the window
        whatever the engine's idempotency key does, so the task retention is no bound."""
        kept = self.trigger_delivery_retention_seconds
        least = 2 * self.trigger_tolerance_seconds + REPLAY_MARGIN_SECONDS
        if "triggers" in self.http_doors and kept and kept < least:
            raise ValueError(
                "AGENTD_TRIGGER_DELIVERY_RETENTION_SECONDS must be 0 (for ever) or at least "
                f"{least} s (twice AGENTD_TRIGGER_TOLERANCE_SECONDS plus "
                f"{REPLAY_MARGIN_SECONDS} s): a delivery's record must outlive its replays"
            )
        return self
