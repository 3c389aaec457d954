"""The language model endpoint, the model per role and its sampling."""

from __future__ import annotations

from pathlib import Path

from pydantic import AliasChoices, Field, field_validator

from agent.llm.window.catalog import parse_entries
from server.settings.base import CommaList, Section


class ModelSettings(Section):
    llm_base_url: str | None = Field(
        None,
        validation_alias=AliasChoices("AGENTD_LLM_BASE_URL", "OPENAI_BASE_URL"),
        description="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1",
    )
    llm_api_key: str | None = Field(
        None,
        validation_alias=AliasChoices("AGENTD_LLM_API_KEY", "OPENAI_API_KEY"),
        description="API key for the endpoint",
    )
    llm_model: str | None = Field(
        None, description="default model name; the engine is off without it"
    )
    llm_planner_model: str | None = Field(None, description="planner model (default: llm_model)")
    llm_executor_model: str | None = Field(None, description="executor model (default: llm_model)")
    llm_critic_model: str | None = Field(None, description="critic model (default: llm_model)")
    llm_synthesizer_model: str | None = Field(
        None, description="synthesizer model (default: llm_model)"
    )
    router_model: str | None = Field(
        None,
        description="auto mode's router model: it decides whether to answer directly, which "
        "mode to use or which agent to hand to (unset: a rule decides)",
    )
    llm_temperature: float | None = Field(None, ge=0, le=2, description="sampling temperature")
    llm_max_tokens: int | None = Field(None, gt=0, description="max tokens per model reply")
    llm_timeout_seconds: float = Field(60.0, gt=0, description="per-request timeout")
    llm_max_attempts: int = Field(
        4, ge=1, le=10, description="attempts on 429/5xx/connection errors"
    )
    llm_image_models: CommaList = Field(
        default_factory=list,
        description="models of the server's own endpoint that take images, comma-separated "
        "(a model not named gets a note naming each image's artifact instead; a providers "
        "file says it per model with `images: true`)",
    )
    llm_tool_calling: bool = Field(True, description="whether the model supports native tool calls")
    model_windows: CommaList = Field(
        default_factory=list,
        description="context windows of models, as name=window[:reply limit] in tokens, "
        "comma-separated (my-llama=32768:4096); they win over the built-in catalog",
    )
    default_context_window: int = Field(
        8192,
        ge=256,
        description="the context window assumed for a model the catalog does not know (the "
        "server warns of such models at start-up)",
    )
    context_reply_tokens: int = Field(
        1024,
        ge=16,
        description="tokens kept for the reply when a model request must be cut to fit its "
        "window (less when the model's reply limit is lower)",
    )
    context_margin: float = Field(
        0.05,
        ge=0,
        le=0.5,
        description="share of each model's window left unused when fitting requests, for "
        "the error of estimated token counts",
    )
    context_input_text_chars: int = Field(
        100_000,
        ge=1_000,
        description="characters of a document given with a task's input (a PDF's text, a "
        "text file) put in its first message; the rest is cut with a note (read_artifact "
        "returns the whole)",
    )

    providers_file: Path | None = Field(
        None,
        description="a YAML/JSON file of named model providers (base URL, key from an "
        "environment variable or a file, allowed models, timeout, concurrency cap) that "
        "agents name with `provider:` and `fallback:` (docs/models.md)",
    )
    provider_breaker_failures: int = Field(
        3, ge=1, description="failed calls (timeouts, 5xx, 429) that open a provider's breaker"
    )
    provider_breaker_window_seconds: float = Field(
        60.0, gt=0, description="the window in which those failures are counted"
    )
    provider_breaker_open_seconds: float = Field(
        30.0,
        gt=0,
        description="how long an open breaker skips its provider before one trial call",
    )

    @field_validator("model_windows")
    @classmethod
    def _windows(cls, value: list[str]) -> list[str]:
        parse_entries(value)
        return value

    def missing_llm_settings(self) -> tuple[str, ...]:
        """What is still to be set before the engine can call a model (empty when nothing
        is): the model's name, and where to send its requests — a base URL, or an API key
        for OpenAI's own endpoint (the default one)."""
        missing: list[str] = []
        if not self.llm_model:
            missing.append("AGENTD_LLM_MODEL")
        if not self.llm_base_url and not self.llm_api_key:
            missing.append(
                "either AGENTD_LLM_BASE_URL (or OPENAI_BASE_URL) or AGENTD_LLM_API_KEY "
                "(or OPENAI_API_KEY)"
            )
        return tuple(missing)
