"""An address that keeps sending bad credentials is slowed down before each one costs a
key lookup and an audit row; a good key already known from that address still works."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentd_client import errors as client_errors
from agentd_client.client import AgentClient
from records.keys import new_key
from tests.integration.trust import trusted


async def test_refused_credentials_are_throttled_per_address(tmp_path: Path) -> None:
    async with trusted(tmp_path, auth_failure_limit="5/m", auth_cache_seconds=60) as t:
        alice = await t.client("acme", "alice")
        await alice.list_tools()  # a good key, now known to this process
        lookups = 0
        lookup = t.server.durable.api_keys.get

        async def counted(key_id: str):  # type: ignore[no-untyped-def]
            nonlocal lookups
            lookups += 1
            return await lookup(key_id)

        t.server.durable.api_keys.get = counted  # type: ignore[method-assign]
        outcomes = []
        for _ in range(200):  # a new guess every time: each would cost a lookup
            async with AgentClient(t.address, api_key=new_key("acme", "m", ())[1]) as mallory:
                try:
                    await mallory.list_tools()
                except client_errors.AgentdError as error:
                    outcomes.append(type(error))
        async with AgentClient(t.address, api_key=new_key("acme", "m", ())[1]) as mallory:
            with pytest.raises(client_errors.ResourceExhaustedError) as throttled:
                await mallory.list_tools()
        assert outcomes[:5] == [client_errors.UnauthenticatedError] * 5
        assert outcomes[5:] == [client_errors.RateLimitedError] * 195
        assert throttled.value.retry_after_seconds is not None
        assert 0 < throttled.value.retry_after_seconds <= 12
        assert lookups == 5  # nothing looked up once throttled

        await alice.list_tools()  # the known key from the same address still gets in
        newcomer = await t.client("acme", "bob")  # an unknown (even valid) one waits
        with pytest.raises(client_errors.RateLimitedError):
            await newcomer.list_tools()

        records = [r for r in await t.rpc_records() if not r.method.startswith("/grpc.")]
        codes = [r.code for r in records]
        assert codes.count("UNAUTHENTICATED") == 5
        assert codes.count("OK") == 2
        assert len(records) == 7  # throttled calls leave no row each


async def test_no_limit_when_switched_off(tmp_path: Path) -> None:
    async with trusted(tmp_path, auth_failure_limit="") as t:
        _, guessed = new_key("acme", "mallory", ())
        async with AgentClient(t.address, api_key=guessed, timeout=10) as mallory:
            for _ in range(40):
                with pytest.raises(client_errors.UnauthenticatedError):
                    await mallory.list_tools()
