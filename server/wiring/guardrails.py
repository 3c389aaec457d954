"""The server's guardrails: the kinds of check that need its settings registered
(`moderation` on its moderation endpoint, `judge` on its models, `policy_service` with the
channels it keeps), then its own checks read (AGENTD_GUARDRAILS_FILE) into the engine's
`GuardrailPolicy`. A file that does not make a guard stops the start, naming every
problem with where it is."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from agent.guardrails.base import register_kind
from agent.guardrails.declarations import load_file
from agent.guardrails.judge import Judges
from agent.guardrails.moderation import ModerationEndpoint, Moderations
from agent.guardrails.options import OptionError
from agent.limits import GuardrailPolicy
from agent.llm.base import Model
from agent.llm.roles import ModelRoles
from agent.scheduling.factory import ModelFactory
from records.guardrails import CheckSpec
from server.guardrails.policy import PolicyServices
from server.settings import Settings


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


class _NoModeration:
    """The `moderation` kind on a server without a moderation endpoint."""

    def check(self, spec: CheckSpec) -> Moderations:  # never returns
        raise OptionError(
            spec.name,
            "kind",
            "needs a moderation endpoint: set AGENTD_GUARDRAIL_MODERATION_URL (or "
            "AGENTD_LLM_BASE_URL)",
        )


class ServerGuardrails:
    """The kinds that need this server registered, its own checks, and what to close."""

    def __init__(
        self,
        settings: Settings,
        models: ModelRoles | None,
        factory: ModelFactory | None,
    ) -> None:
        url = settings.guardrail_moderation_url or settings.llm_base_url
        key = settings.guardrail_moderation_api_key or settings.llm_api_key or ""
        self.moderations: Moderations | None = None
        if url:
            endpoint = ModerationEndpoint(url, key, settings.guardrail_moderation_model)
            self.moderations = Moderations(endpoint)
            register_kind("moderation", self.moderations.check, replace=True)
        else:
            register_kind("moderation", _NoModeration().check, replace=True)  # type: ignore[arg-type]
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
        if self.moderations is not None:
            await self.moderations.close()
        await self.policies.close()

    async def held(self) -> None:
        """Held open for the server's life, as one of its background jobs: closed (its
        clients and channels) when the server stops them, after the engine has closed."""
        try:
            await asyncio.Event().wait()
        finally:
            await self.close()
