"""The HTTP address's settings: AGENTD_HTTP_ADDRESS, read under its former name
AGENTD_A2A_HTTP_ADDRESS too (an old deployment keeps its address), AGENTD_HTTP_DOORS
(a2a by default while A2A is on) and AGENTD_HTTP_MAX_BODY_BYTES."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from server.settings import Settings
from server.settings.environment import setting_variables
from server.wiring.fronts.http import doors_on


def test_the_former_name_of_the_address_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTD_A2A_HTTP_ADDRESS", "127.0.0.1:8080")
    assert Settings().http_address == "127.0.0.1:8080"
    monkeypatch.setenv("AGENTD_HTTP_ADDRESS", "0.0.0.0:9000")  # the current name wins
    assert Settings().http_address == "0.0.0.0:9000"
    assert {"AGENTD_HTTP_ADDRESS", "AGENTD_A2A_HTTP_ADDRESS"} <= setting_variables(Settings)


def test_the_doors_default_to_a2a_while_a2a_is_on(monkeypatch: pytest.MonkeyPatch) -> None:
    assert doors_on(Settings()) == []
    monkeypatch.setenv("AGENTD_A2A", "true")
    assert doors_on(Settings()) == ["a2a"]
    monkeypatch.setenv("AGENTD_HTTP_DOORS", "MCP, openai,mcp")
    assert doors_on(Settings()) == ["mcp", "openai"]


def test_an_unknown_door_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTD_HTTP_DOORS", "a2a,graphql")
    with pytest.raises(
        ValidationError, match="no front door graphql: choose from a2a, mcp, openai"
    ):
        Settings()


def test_the_body_limit_is_unset_by_default_and_never_zero(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert Settings().http_max_body_bytes is None
    monkeypatch.setenv("AGENTD_HTTP_MAX_BODY_BYTES", "0")
    with pytest.raises(ValidationError, match="http_max_body_bytes"):
        Settings()


def test_delivery_retention_need_not_outlive_the_task_retention(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AGENTD_HTTP_DOORS", "triggers")
    monkeypatch.setenv("AGENTD_RETENTION_SECONDS", str(7 * 86_400))
    settings = Settings()
    assert settings.trigger_delivery_retention_seconds == 7 * 86_400


def test_delivery_retention_must_outlive_the_timestamp_window(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AGENTD_HTTP_DOORS", "triggers")
    monkeypatch.setenv("AGENTD_TRIGGER_TOLERANCE_SECONDS", "300")
    monkeypatch.setenv("AGENTD_TRIGGER_DELIVERY_RETENTION_SECONDS", "600")
    with pytest.raises(ValidationError, match="AGENTD_TRIGGER_DELIVERY_RETENTION_SECONDS"):
        Settings()
    monkeypatch.setenv("AGENTD_TRIGGER_DELIVERY_RETENTION_SECONDS", "660")
    assert Settings().trigger_delivery_retention_seconds == 660
    monkeypatch.setenv("AGENTD_TRIGGER_DELIVERY_RETENTION_SECONDS", "0")
    assert Settings().trigger_delivery_retention_seconds == 0
