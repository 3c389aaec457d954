"""The language model endpoint, the model per role and its sampling."""

from __future__ import annotations

from pydantic import AliasChoices, Field

from server.settings.base import Section


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
    llm_temperature: float | None = Field(None, ge=0, le=2, description="sampling temperature")
    llm_max_tokens: int | None = Field(None, gt=0, description="max tokens per model reply")
    llm_timeout_seconds: float = Field(60.0, gt=0, description="per-request timeout")
    llm_max_attempts: int = Field(
        4, ge=1, le=10, description="attempts on 429/5xx/connection errors"
    )
    llm_tool_calling: bool = Field(True, description="whether the model supports native tool calls")
