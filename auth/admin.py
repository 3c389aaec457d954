"""Key administration on the database itself (the `agentd keys` commands).

These run where the operator has the database's URL, not through the RPC
API: creating a credential must not need a credential.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from auth.keys import ApiKey, new_key
from auth.sql_keys import SqlKeyStore
from db.engine import create_engine, migrate


@asynccontextmanager
async def _keys(url: str) -> AsyncIterator[SqlKeyStore]:
    """The key store of an up-to-date database, for one command."""
    await migrate(url)
    engine = create_engine(url)
    try:
        yield SqlKeyStore(engine)
    finally:
        await engine.dispose()


async def create_key(url: str, tenant: str, principal: str, roles: tuple[str, ...]) -> str:
    """Store a new key; returns its plaintext (shown once, never stored)."""
    key, plaintext = new_key(tenant, principal, roles)
    async with _keys(url) as keys:
        await keys.add(key)
    return plaintext


async def list_keys(url: str) -> list[ApiKey]:
    async with _keys(url) as keys:
        return await keys.list()


async def revoke_key(url: str, key_id: str) -> bool:
    async with _keys(url) as keys:
        return await keys.revoke(key_id)
