"""The development key is made once, for a fresh embedded database: revoking every key
and restarting does not print a new admin key, nor pile up development grants."""

from __future__ import annotations

from pathlib import Path

import pytest
import structlog.testing

from server.app import _announce_auth
from tests.servers import running_server, settings_in


async def test_revoking_every_key_then_restarting_makes_no_new_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = settings_in(tmp_path, metrics_address="")
    async with running_server(settings) as running:
        server = running.server
        await _announce_auth(server)
        assert "AGENTD_API_KEY" in capsys.readouterr().out
        for key in await server.durable.api_keys.list():
            assert await server.durable.api_keys.revoke(key.key_id)
    for _ in range(2):  # two restarts
        async with running_server(settings) as restarted:
            again = restarted.server
            await _announce_auth(again)
            assert "AGENTD_API_KEY" not in capsys.readouterr().out
            assert not any(key.active for key in await again.durable.api_keys.list())
            development = [
                g
                for g in await again.durable.grants.list()
                if g.created_by == "agentd:development-setup"
            ]
            assert len(development) == 1


async def test_no_development_key_when_turned_off(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """AGENTD_DEVELOPMENT_KEY=false (what the image sets): a fresh embedded database gets no
    key and no grant; start-up says how to create a key instead."""
    settings = settings_in(tmp_path, metrics_address="", development_key=False)
    async with running_server(settings) as running:
        server = running.server
        with structlog.testing.capture_logs() as logs:
            await _announce_auth(server)
        assert "AGENTD_API_KEY" not in capsys.readouterr().out
        assert await server.durable.api_keys.list() == []
        assert await server.durable.grants.list() == []
        assert any("agentd keys create" in entry["event"] for entry in logs), logs


async def test_a_restart_with_keys_says_how_to_make_another(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The development key is printed once: a restart prints none, and says in one line
    where a newcomer who lost it gets another."""
    settings = settings_in(tmp_path, metrics_address="")
    async with running_server(settings) as running:
        await _announce_auth(running.server)
        assert "AGENTD_API_KEY" in capsys.readouterr().out
    async with running_server(settings) as restarted:
        with structlog.testing.capture_logs() as logs:
            await _announce_auth(restarted.server)
    assert "AGENTD_API_KEY" not in capsys.readouterr().out
    pointers = [entry for entry in logs if "agentd keys create" in entry["event"]]
    assert len(pointers) == 1, logs
    assert "--tenant default --principal developer --role admin" in pointers[0]["event"]
    assert pointers[0]["log_level"] == "info"
