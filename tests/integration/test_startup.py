"""A fast, light start: what `agentd serve` has imported when health first says SERVING,
and that the first calls after a start work all the same (not timed: `make bench` times
it, bench/startup.py).

`NOT_BEFORE_SERVING` is the list to extend: a feature whose library serving does not
need before it answers health (a protocol SDK, a vector library, a provider's client)
adds its top-level module here and imports it where it is used (docs/deploy.md,
"Start-up: what loads when").
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterable, Mapping
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from agentd.v1 import tasks_pb2
from agentd_client.client import AgentClient
from stores.sql.engine import known_head
from tests.helpers import ROOT, fake_llm_process, llm_env, server_process
from tests.integration.harness import PLANNER

PROBE = ROOT / "tests" / "integration" / "startup_probe.py"

NOT_BEFORE_SERVING: dict[str, str] = {
    "openai": "the model SDK: imported when the first model is built",
    "aiohttp": "the model SDK's transport",
    "tenacity": "the model's retries (agent/llm/openai.py)",
    "mcp": "MCP toolsets (AGENTD_TOOLSETS_FILE)",
    "mcp_types": "MCP toolsets",
    "uvicorn": "MCP's server side, never needed by a client",
    "starlette": "MCP's server side",
    "sse_starlette": "MCP's server side",
    "a2a": "the A2A SDK",
    "redis": "Redis's client: only with AGENTD_REDIS_URL",
    "asyncpg": "PostgreSQL's driver: only with a PostgreSQL URL",
    "tiktoken": "the tokenizer: built after SERVING, for a configured model only",
    "opentelemetry.sdk": "the tracing SDK: only when spans are exported (OTEL_* settings)",
    "yaml": "PyYAML: agent files (AGENTD_AGENTS_DIR) and toolsets files",
    "jwt": "PyJWT: only with JWT settings (AGENTD_JWT_*)",
    "clients.cli": "the client's command line",
    "agentd_client": "the Python client",
    "numpy": "vectors (memory)",
    "pgvector": "vectors on PostgreSQL (memory)",
}
"""Top-level modules (or packages) a server on the embedded defaults must not have
imported when it first answers SERVING, and why they are not needed then."""

MIGRATING = {
    "alembic": "migrations: a first start runs them in a child process, a restart needs none",
    "sqlalchemy.dialects.postgresql": "PostgreSQL's dialect: Alembic loads every dialect's DDL",
}
"""Needed to migrate a database: never imported by the serving process on the embedded
defaults (server/commands/migrate_apart.py)."""


def _imported(modules: Iterable[str], names: Iterable[str]) -> list[str]:
    loaded = set(modules)
    return sorted(
        name for name in names if name in loaded or any(m.startswith(f"{name}.") for m in loaded)
    )


def _serve_until_serving(folder: Path, env: Mapping[str, str] = {}) -> dict[str, Any]:
    """Run the probe (agentd serve in a fresh interpreter) in `folder`; its snapshot."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = {k: v for k, v in os.environ.items() if not k.startswith(("AGENTD_", "OPENAI_"))}
    settings.update(AGENTD_ADDRESS=f"127.0.0.1:{port}", AGENTD_METRICS_ADDRESS="127.0.0.1:0")
    settings.update(env)
    out = folder / "snapshot.json"
    done = subprocess.run(
        [sys.executable, str(PROBE), str(out)],
        cwd=folder, env=settings, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    snapshot: dict[str, Any] = json.loads(out.read_text())
    return snapshot


def test_serving_on_the_embedded_defaults_imports_only_what_it_needs(tmp_path: Path) -> None:
    first = _serve_until_serving(tmp_path)  # a new database: migrated in a child process
    assert _imported(first["modules"], {**NOT_BEFORE_SERVING, **MIGRATING}) == []
    assert _revision(tmp_path / "var" / "agentd.db") == [known_head()]
    restart = _serve_until_serving(tmp_path)  # the same folder: its database, migrated
    assert _imported(restart["modules"], {**NOT_BEFORE_SERVING, **MIGRATING}) == []
    assert "grpc" in restart["modules"]  # the probe saw the server's own modules


def _revision(database: Path) -> list[str]:
    with closing(sqlite3.connect(database)) as db:
        return [row[0] for row in db.execute("SELECT version_num FROM alembic_version")]


def test_a_configured_model_s_sdk_is_imported_after_serving(tmp_path: Path) -> None:
    """With a model configured the OpenAI SDK still waits until SERVING (it is imported
    in a thread then, and the models are built on first need): no call reaches the
    endpoint, which need not exist."""
    env = llm_env("http://127.0.0.1:9/v1", AGENTD_LLM_EXECUTOR_MODEL="gpt-4o")
    snapshot = _serve_until_serving(tmp_path, env)
    assert _imported(snapshot["modules"], NOT_BEFORE_SERVING) == []


def test_the_probe_sees_a_forbidden_module_when_one_is_imported(tmp_path: Path) -> None:
    """The check above can fail: a toolsets file brings MCP's client in before SERVING
    (its servers get their first try then)."""
    toolsets = tmp_path / "toolsets.yaml"
    toolsets.write_text("toolsets: {}\n")
    snapshot = _serve_until_serving(tmp_path, {"AGENTD_TOOLSETS_FILE": str(toolsets)})
    assert "mcp" in _imported(snapshot["modules"], NOT_BEFORE_SERVING)


@pytest.fixture
def started(tmp_path: Path) -> Any:
    """A server process just started with a fake model (no call made to it yet)."""
    script = tmp_path / "script.json"
    plan = {"steps": [{"id": "s1", "description": "add"}]}
    script.write_text(
        json.dumps([{"match": PLANNER, "json": plan, "repeat": -1}, {"text": "4", "repeat": -1}])
    )
    env = llm_env("", AGENTD_CRITIC_POLICY="off", AGENTD_TOOL_PERMISSION="read")
    with fake_llm_process(script) as base_url:
        env["AGENTD_LLM_BASE_URL"] = base_url
        with server_process(tmp_path / "server", env) as served:
            yield served


async def test_the_first_execute_after_a_start_works(started: Any) -> None:
    async with AgentClient(started.address) as client:
        events = [e async for e in client.execute("what is 2+2?", timeout=60)]
    final = [e.final_answer.text for e in events if e.WhichOneof("payload") == "final_answer"]
    assert final == ["4"]
    assert events[-1].status_changed.current == tasks_pb2.TASK_STATUS_COMPLETED


async def test_the_first_call_tool_after_a_start_works(started: Any) -> None:
    async with AgentClient(started.address) as client:
        result = await client.call_tool("calculator", {"expression": "6*7"}, timeout=30)
    assert "42" in str(result)
