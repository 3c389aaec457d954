"""The development key is made once, for a fresh embedded database: revoking every key
and restarting does not print a new admin key, nor pile up development grants."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.app import AgentdServer, _announce_auth
from server.settings import Settings


async def test_revoking_every_key_then_restarting_makes_no_new_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = Settings(
        address="127.0.0.1:0",
        workspace_dir=tmp_path / "ws",
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'agentd.db'}",
        metrics_address="",
    )
    server = await AgentdServer.start(settings)
    try:
        await _announce_auth(server)
        assert "AGENTD_API_KEY" in capsys.readouterr().out
        for key in await server.durable.api_keys.list():
            assert await server.durable.api_keys.revoke(key.key_id)
    finally:
        await server.shutdown(grace=0)
    for _ in range(2):  # two restarts
        again = await AgentdServer.start(settings)
        try:
            await _announce_auth(again)
            assert "AGENTD_API_KEY" not in capsys.readouterr().out
            assert not any(key.active for key in await again.durable.api_keys.list())
            development = [
                g
                for g in await again.durable.grants.list()
                if g.created_by == "agentd:development-setup"
            ]
            assert len(development) == 1
        finally:
            await again.shutdown(grace=0)
