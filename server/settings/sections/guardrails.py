"""Guardrails: the server's own checks on what goes into tasks and comes out of them
(AGENTD_GUARDRAILS_FILE), how streamed output is held back for them, and where the
checks that need a service send their text."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from server.settings.base import Section


class GuardrailSettings(Section):
    guardrails_file: Path | None = Field(
        None,
        description="a YAML file of the server's guardrails (a `guardrails:` list of checks "
        "every task gets, before its agent's own), read at start",
    )
    guardrail_window_chars: int = Field(
        256,
        ge=1,
        le=100_000,
        description="streamed model output is checked, and released to the task's events, a "
        "window of this many characters at a time (larger: fewer checks, later first text)",
    )
    guardrail_tail_chars: int = Field(
        128,
        ge=0,
        le=10_000,
        description="characters of each window held for the next, so that a match straddling "
        "two windows is checked whole before any of it is released",
    )
    guardrail_fail: str = Field(
        "closed",
        pattern="^(open|closed)$",
        description="what a check that cannot decide (its service down) does unless it says: "
        "closed blocks, open lets through (both recorded)",
    )
    guardrail_moderation_url: str | None = Field(
        None,
        description="the OpenAI-compatible endpoint (…/v1) of `moderation` checks; unset: "
        "AGENTD_LLM_BASE_URL",
    )
    guardrail_moderation_api_key: str | None = Field(
        None, description="its API key; unset: AGENTD_LLM_API_KEY"
    )
    guardrail_moderation_model: str = Field(
        "omni-moderation-latest", description="the moderation model a check names none of"
    )
