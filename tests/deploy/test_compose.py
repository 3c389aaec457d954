"""deploy/compose.yaml is a valid Compose file (the Compose Specification's JSON schema,
vendored in tests/deploy/schemas, checked offline) that wires agentd, its migration,
Redis, PostgreSQL and the fake model together the way docs/deploy.md says."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from agent.llm.fakes.script import Script
from tests.deploy.manifests import drain_seconds

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "deploy" / "compose.yaml"
SCHEMA = Path(__file__).parent / "schemas" / "compose-spec" / "compose-spec.json"


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    return loaded


def _errors(document: object) -> list[str]:
    validator = jsonschema.Draft7Validator(json.loads(SCHEMA.read_text()))
    return [f"{'.'.join(map(str, e.path))}: {e.message}" for e in validator.iter_errors(document)]


def test_the_compose_file_follows_the_compose_specification(compose: dict[str, Any]) -> None:
    assert _errors(compose) == []


def test_the_schema_refuses_what_compose_would(compose: dict[str, Any]) -> None:
    broken = json.loads(json.dumps(compose))
    broken["services"]["agentd"]["depends_on"]["migrate"]["condition"] = "service_done"
    broken["services"]["redis"]["restart_policy"] = "always"  # not a service field
    errors = _errors(broken)
    assert any("service_done" in error for error in errors), errors
    assert any("restart_policy" in error for error in errors), errors


def test_agentd_starts_after_its_migration_on_redis_postgres_and_the_fake_model(
    compose: dict[str, Any],
) -> None:
    services = compose["services"]
    assert set(services) == {"agentd", "migrate", "redis", "postgres", "fake-llm"}
    agentd, migrate, fake = services["agentd"], services["migrate"], services["fake-llm"]
    assert agentd["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}
    assert migrate["command"] == ["migrate"]
    assert migrate["depends_on"]["postgres"]["condition"] == "service_healthy"
    env = agentd["environment"]
    assert env["AGENTD_DATABASE_URL"].startswith("postgresql+asyncpg://agentd@postgres:5432/")
    assert env["AGENTD_REDIS_URL"].startswith("redis://redis:6379")
    assert migrate["environment"]["AGENTD_DATABASE_URL"] == env["AGENTD_DATABASE_URL"]
    port = fake["command"][fake["command"].index("--port") + 1]
    assert env["AGENTD_LLM_BASE_URL"] == f"http://fake-llm:{port}/v1"
    script = fake["volumes"][0].split(":")[0]
    played = Script.load(COMPOSE.parent / script)  # a script the fake model can play
    assert len(played.shared) == 1
    assert agentd["healthcheck"]["test"][-1] == "health"


def test_agentd_runs_as_in_kubernetes_and_publishes_loopback_only(
    compose: dict[str, Any],
) -> None:
    services = compose["services"]
    agentd = services["agentd"]
    assert agentd["read_only"] is True
    assert agentd["cap_drop"] == ["ALL"]
    assert agentd["volumes"] == ["agentd-state:/var/lib/agentd"]
    assert (ROOT / "deploy" / agentd["build"]["context"] / agentd["build"]["dockerfile"]).is_file()
    published = [port for service in services.values() for port in service.get("ports", [])]
    assert published
    assert all(port.startswith("127.0.0.1:") for port in published)
    grace = int(agentd["stop_grace_period"].removesuffix("s"))
    assert grace > drain_seconds(agentd["environment"])
