"""Key administration on the database itself (the `agentd keys` commands).

These run where the operator has the database's URL, not through the RPC
API: creating a credential must not need a credential.
"""

from __future__ import annotations

from auth.keys import ApiKey, new_key
from auth.sql_keys import SqlKeyStore
from db.engine import create_engine, migrate


async def create_key(url: str, tenant: str, principal: str, roles: tuple[str, ...]) -> str:
    """Store a new key; returns its plaintext (shown once, never stored)."""
    await migrate(url)
    engine = create_engine(url)
    try:
        key, plaintext = new_key(tenant, principal, roles)
        await SqlKeyStore(engine).add(key)
        return plaintext
    finally:
        await engine.dispose()


async def list_keys(url: str) -> list[ApiKey]:
    await migrate(url)
    engine = create_engine(url)
    try:
        return await SqlKeyStore(engine).list()
    finally:
        await engine.dispose()


async def revoke_key(url: str, key_id: str) -> bool:
    await migrate(url)
    engine = create_engine(url)
    try:
        return await SqlKeyStore(engine).revoke(key_id)
    finally:
        await engine.dispose()
