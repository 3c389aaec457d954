"""The server's model catalog: settings, and the start-up warning for unknown models."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from agent.llm.window.catalog import ModelLimits
from server.settings import Settings
from server.wiring import model_limits
from server.wiring.model_limits import (
    configured_models,
    fit_policy,
    model_catalog,
    warn_unknown_models,
)


def test_windows_from_settings_win_and_unknown_models_are_warned_of(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = Settings(
        llm_model="house-model",
        llm_critic_model="gpt-4o-mini",
        agent_models=["other-house-model", "claude-3-5-haiku"],
        model_windows=["house-model=32768:2048"],
        default_context_window=4096,
        context_reply_tokens=512,
        context_margin=0.1,
    )
    catalog = model_catalog(settings)
    assert catalog.limits("house-model") == ModelLimits(32_768, 2_048)
    assert catalog.limits("nobody-knows").context_window == 4_096
    policy = fit_policy(settings)
    assert (policy.reply_tokens, policy.margin) == (512, 0.1)
    said: list[dict[str, object]] = []

    class Log:  # the module's own logger: structlog may have cached it before capture_logs
        def warning(self, event: str, **fields: object) -> None:
            said.append({"event": event, "log_level": "warning", **fields})

    monkeypatch.setattr(model_limits, "log", Log())
    unknown = warn_unknown_models(catalog, configured_models(settings))
    assert unknown == ["other-house-model"]
    (warning,) = said
    assert warning["log_level"] == "warning"
    assert warning["model"] == "other-house-model"
    assert warning["assumed_window"] == 4_096
    assert "AGENTD_MODEL_WINDOWS" in str(warning["event"])


def test_a_malformed_window_is_refused_at_start() -> None:
    with pytest.raises(ValidationError, match="name=window"):
        Settings(model_windows=["house-model:32768"])
