"""What the server knows of its models' limits: the catalog of context windows, how
requests are fitted into them, and the start-up warning for models it does not know."""

from __future__ import annotations

from collections.abc import Iterable

import structlog

from agent.llm.window.catalog import ModelCatalog, parse_entries
from agent.llm.window.fitting import FitPolicy
from server.settings import Settings

log = structlog.get_logger(__name__)


def model_catalog(settings: Settings) -> ModelCatalog:
    """The built-in catalog with the operator's windows (AGENTD_MODEL_WINDOWS) on top."""
    return ModelCatalog(
        parse_entries(settings.model_windows), default_window=settings.default_context_window
    )


def fit_policy(settings: Settings) -> FitPolicy:
    return FitPolicy(
        reply_tokens=settings.context_reply_tokens,
        margin=settings.context_margin,
        input_text_chars=settings.context_input_text_chars,
    )


def configured_models(settings: Settings) -> list[str]:
    """Every model name the settings mention."""
    names = [
        settings.llm_model,
        settings.llm_planner_model,
        settings.llm_executor_model,
        settings.llm_critic_model,
        settings.llm_synthesizer_model,
        settings.router_model,
        *settings.agent_models,
    ]
    return [name for name in names if name]


def warn_unknown_models(catalog: ModelCatalog, models: Iterable[str]) -> list[str]:
    """Log a warning for each model the catalog does not know; returns their names."""
    unknown = catalog.unknown(models)
    for name in unknown:
        log.warning(
            "model not in the catalog: its context window is assumed; some servers silently "
            "cut what does not fit, so declare it in AGENTD_MODEL_WINDOWS",
            model=name,
            assumed_window=catalog.default_window,
        )
    return unknown
