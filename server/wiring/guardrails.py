"""The server's guardrails: the kinds of check that need its settings registered
(`moderation` on its moderation endpoint, `judge` on its models, `policy_service` with the
channels it keeps), then its own checks read (AGENTD_GUARDRAILS_FILE) into the engine's
`GuardrailPolicy`. A file that does not make a guard stops the start, naming every
problem with where it is."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent.guardrails.base import Check, register_kind
from agent.guardrails.declarations import load_file
from agent.guardrails.judge import Judges
from agent.guardrails.options import OptionError
from agent.limits import GuardrailPolicy
from agent.llm.base import Model
from agent.llm.roles import ModelRoles
from agent.scheduling.factory import ModelFactory
from records.guardrails import CheckSpec
from server.guardrails.policy import PolicyServices
from server.settings import Settings

if TYPE_CHECKING:  # the model SDK: imported when a moderation check is first made
    from agent.guardrails.moderation import Moderations


@dataclass(frozen=True, slots=True)
class _ServerModels:
    """The judge's models: the server's default, or a sibling of it by name."""

    models: ModelRoles | None
    factory: ModelFactory | None

    def judge_model(self, name: str) -> Model:
        if self.models is None:
            raise LookupError("this server has no model (AGENTD_LLM_MODEL)")
        if not name:
            return self.models.default
        if self.factory is None:
            raise LookupError(f"this server cannot make the model {name!r}")
        return self.factory(name, 0.0, None)


class _Moderation:
    """The `moderation` kind: its client (the model SDK's) made when a check first needs
    it, not at start-up; without an endpoint, a check of the kind is refused."""

    def __init__(self, url: str, key: str, model: str) -> None:
        self._url, self._key, self._model = url, key, model
        self.made: Moderations | None = None

    def check(self, spec: CheckSpec) -> Check:
        if not self._url:
            raise OptionError(
                spec.name,
                "kind",
                "needs a moderation endpoint: set AGENTD_GUARDRAIL_MODERATION_URL (or "
                "AGENTD_LLM_BASE_URL)",
            )
        if self.made is None:
            from agent.guardrails.moderation import (
                ModerationEndpoint,
                Moderations,
            )

            self.made = Moderations(ModerationEndpoint(self._url, self._key, self._model))
        return self.made.check(spec)


class ServerGuardrails:
    """The kinds that need this server registered, its own checks, and what to close."""

    def __init__(
        self,
        settings: Settings,
        models: ModelRoles | None,
        factory: ModelFactory | None,
    ) -> None:
        url = settings.guardrail_moderation_url or settings.llm_base_url or ""
        key = settings.guardrail_moderation_api_key or settings.llm_api_key or ""
        self.moderation = _Moderation(url, key, settings.guardrail_moderation_model)
        register_kind("moderation", self.moderation.check, replace=True)
        register_kind("judge", Judges(_ServerModels(models, factory)).check, replace=True)
        self.policies = PolicyServices()
        register_kind("policy_service", self.policies.check, replace=True)
        checks = load_file(settings.guardrails_file) if settings.guardrails_file else []
        self.policy = GuardrailPolicy(
            tuple(checks),
            window_chars=settings.guardrail_window_chars,
            tail_chars=settings.guardrail_tail_chars,
            fail_closed=settings.guardrail_fail == "closed",
        )

    async def close(self) -> None:
        if self.moderation.made is not None:
            await self.moderation.made.close()
        await self.policies.close()

    async def held(self) -> None:
        """Held open for the server's life, as one of its background jobs: closed (its
        clients and channels) when the server stops them, after the engine has closed."""
        try:
            await asyncio.Event().wait()
        finally:
            await self.close()
