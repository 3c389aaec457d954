"""The providers file at start-up: keys scrubbed wherever text is redacted, bad files refused."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from core import secrets
from server.listening import StartupError
from server.settings import Settings
from server.wiring.providers import build_providers, configure_secrets

KEY = "sk-unit-KEY-4e2a9b7c1d"


@pytest.fixture(autouse=True)
def _restore_patterns() -> Iterator[None]:
    yield
    secrets.configure()


async def test_each_key_is_scrubbed_and_each_provider_gets_its_limits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UNIT_PROVIDER_KEY", KEY)
    path = tmp_path / "providers.yaml"
    path.write_text(
        "providers:\n"
        "  main:\n"
        "    base_url: http://127.0.0.1:9/v1\n"
        "    api_key_env: UNIT_PROVIDER_KEY\n"
        "    models: [m1]\n"
        "    max_concurrent: 2\n"
    )
    settings = Settings(providers_file=path, provider_breaker_failures=4)
    configure_secrets(settings)
    assert KEY not in secrets.scrub(f"the key was {KEY} all along")
    (main,) = build_providers(settings).values()
    try:
        assert main.name == "main"
        assert main.models == ("m1",)
        assert main.calls is not None
        assert main.breaker.failures == 4
        assert main.make("m1", None, None).name == "m1"
    finally:
        assert main.close is not None
        await main.close()  # type: ignore[misc]


def test_a_file_that_cannot_be_used_stops_the_start(tmp_path: Path) -> None:
    path = tmp_path / "providers.json"
    path.write_text(json.dumps({"providers": {"main": {"base_url": ""}}}))
    with pytest.raises(StartupError, match=r"providers\.main\.base_url: required"):
        configure_secrets(Settings(providers_file=path))
