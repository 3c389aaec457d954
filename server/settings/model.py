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
