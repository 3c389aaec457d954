"""Providers per agent: two agents on two providers in one server, fallback on a timeout,
a breaker that skips a provider that stays down, a fallback mid-stream, and keys that
never leave the HTTP clients. Each provider is a fake model server on a port of its own."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agent.llm.fakes.server import FakeOpenAIServer
from agentd.v1 import events_pb2, tasks_pb2
from tests.integration.harness import assert_well_formed, final, model_settings, of_kind
from tests.servers import QUIET, Running, running_server, settings_in

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
ALPHA_KEY = "sk-alpha-KEY-0f3b9c2d7e"
BETA_KEY = "sk-beta-KEY-8a1c4e6f2b"
BACKUP_KEY = "sk-backup-KEY-5d7e9f1a3c"
KEYS = (ALPHA_KEY, BETA_KEY, BACKUP_KEY)


@dataclass
class Fleet:
    alpha: FakeOpenAIServer
    beta: FakeOpenAIServer
    backup: FakeOpenAIServer
    running: Running


@contextlib.asynccontextmanager
async def fleet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, alpha: list[dict[str, Any]],
    beta: list[dict[str, Any]], backup: list[dict[str, Any]], **settings: Any,
) -> AsyncIterator[Fleet]:  # fmt: skip
    monkeypatch.setenv("AGENTD_TEST_ALPHA_KEY", ALPHA_KEY)
    monkeypatch.setenv("AGENTD_TEST_BACKUP_KEY", BACKUP_KEY)
    (tmp_path / "beta.key").write_text(BETA_KEY + "\n")
    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "fast.yaml").write_text(
        "id: fast\nmode: function_calling\nmodel: alpha-model\nprovider: alpha\n"
        "fallback: [{provider: backup, model: backup-model}]\n"
    )
    (agents / "steady.yaml").write_text(
        "id: steady\nmode: function_calling\nmodel: beta-model\nprovider: beta\n"
    )
    async with (
        FakeOpenAIServer(alpha) as a,
        FakeOpenAIServer(beta) as b,
        FakeOpenAIServer(backup) as c,
    ):
        providers = {
            "providers": {
                "alpha": {"base_url": a.base_url, "api_key_env": "AGENTD_TEST_ALPHA_KEY",
                          "timeout_seconds": 0.5, "models": ["alpha-model"]},
                "beta": {"base_url": b.base_url, "api_key_file": str(tmp_path / "beta.key"),
                         "max_concurrent": 2},
                "backup": {"base_url": c.base_url, "api_key_env": "AGENTD_TEST_BACKUP_KEY"},
            }
        }  # fmt: skip
        (tmp_path / "providers.json").write_text(json.dumps(providers))
        config = settings_in(
            tmp_path,
            **{**QUIET, **model_settings(a), "grace_period_seconds": 1.0},
            agents_dir=agents,
            providers_file=tmp_path / "providers.json",
            llm_max_attempts=1,
            **settings,
        )
        async with running_server(config) as running:
            yield Fleet(a, b, c, running)


async def _run(fleet: Fleet, agent: str, task: str) -> list[events_pb2.TaskEvent]:
    client = fleet.running.client(timeout=30)
    return [e async for e in client.execute(task, agent=agent, mode=FC)]


def _keys_in(text: str) -> list[str]:
    return [key for key in KEYS if key in text]


async def test_agents_on_two_providers_fall_back_and_skip_a_provider_that_stays_down(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    alpha = [{"text": "too late", "delay_seconds": 3}]
    beta = [{"text": "beta answers", "repeat": 2}]
    backup = [{"text": "backup answers", "repeat": 2}]
    async with fleet(
        tmp_path, monkeypatch, alpha, beta, backup, provider_breaker_failures=1,
        provider_breaker_open_seconds=60,
    ) as f:  # fmt: skip
        steady = await _run(f, "steady", "hello from steady")
        fell_back = await _run(f, "fast", "hello from fast")
        skipped = await _run(f, "fast", "hello again from fast")
        audit = [
            str(record)
            for kind in ("rpc", "tool_call")
            for record in (await f.running.client().list_audit_records(kind)).records
        ]
        assert audit
    for events in (steady, fell_back, skipped):
        assert_well_formed(events)
    # each agent on its own provider, each usage event naming who answered
    assert final(steady).text == "beta answers"
    (usage,) = of_kind(steady, "usage")
    assert (usage.provider, usage.model) == ("beta", "beta-model")
    assert f.beta.requests[0]["model"] == "beta-model"
    # alpha timed out (0.5 s, its reply takes 3 s): the backup answered
    assert final(fell_back).text == "backup answers"
    (usage,) = of_kind(fell_back, "usage")
    assert (usage.provider, usage.model) == ("backup", "backup-model")
    # alpha's breaker opened on that failure: the next task never asked it
    assert final(skipped).text == "backup answers"
    assert len(f.alpha.requests) == 1
    assert len(f.backup.requests) == 2
    assert of_kind(skipped, "usage")[0].provider == "backup"
    # keys travel only in each provider's own requests, never in events, audit or logs
    captured = capfd.readouterr()
    logs = captured.out + captured.err
    assert "provider failed; trying the next in the chain" in logs
    assert "circuit is open" in logs
    assert not _keys_in(logs)
    assert not _keys_in(str([*steady, *fell_back, *skipped]))
    assert not _keys_in("\n".join(audit))
    assert not _keys_in((tmp_path / "agents" / "fast.yaml").read_text())


async def test_a_fallback_after_streamed_text_tells_clients_to_discard_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alpha = [{"text": "first half, second half, third", "chunks": 3, "cut_after": 2}]
    backup = [{"text": "a whole answer"}]
    async with fleet(tmp_path, monkeypatch, alpha, [], backup) as f:
        events = await _run(f, "fast", "stream something")
    assert_well_formed(events)
    kinds = [e.WhichOneof("payload") for e in events]
    (discarded,) = of_kind(events, "stream_discarded")
    assert discarded.provider == "alpha"
    assert discarded.model == "alpha-model"
    before = kinds.index("stream_discarded")
    deltas = [e.text_delta.text for e in events[:before] if e.HasField("text_delta")]
    assert "".join(deltas)  # alpha's first chunks did reach the client
    after = "".join(e.text_delta.text for e in events[before:] if e.HasField("text_delta"))
    assert after == "a whole answer"
    assert final(events).text == "a whole answer"
    assert of_kind(events, "usage")[0].provider == "backup"
