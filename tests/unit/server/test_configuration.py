"""Configuration mistakes said plainly: exactly the model settings still missing."""

from __future__ import annotations

import pytest

from server.settings import Settings


@pytest.mark.parametrize(
    ("given", "missing"),
    [
        ({}, ("AGENTD_LLM_MODEL", "ENDPOINT")),
        ({"llm_base_url": "http://127.0.0.1:1/v1"}, ("AGENTD_LLM_MODEL",)),
        ({"llm_api_key": "k"}, ("AGENTD_LLM_MODEL",)),
        ({"llm_model": "m"}, ("ENDPOINT",)),
        ({"llm_model": "m", "llm_base_url": "http://127.0.0.1:1/v1"}, ()),
        ({"llm_model": "m", "llm_api_key": "k"}, ()),  # OpenAI's own endpoint
    ],
)
def test_the_missing_model_settings_are_exactly_those_this_configuration_lacks(
    given: dict[str, str], missing: tuple[str, ...]
) -> None:
    endpoint = (
        "either AGENTD_LLM_BASE_URL (or OPENAI_BASE_URL) or AGENTD_LLM_API_KEY (or OPENAI_API_KEY)"
    )
    expected = tuple(endpoint if name == "ENDPOINT" else name for name in missing)
    assert Settings.model_validate(given).missing_llm_settings() == expected


def test_the_openai_variables_count_as_the_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    assert Settings().missing_llm_settings() == ("AGENTD_LLM_MODEL",)
