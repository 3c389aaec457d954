"""Key and grant administration on the database itself (`agentd keys`, `agentd grants`).

These run where the operator has the database's URL, not through the RPC
API: creating a credential must not need a credential.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from records.keys import ApiKey, new_key, roles_by_principal
from records.tools.grants import Grant
from stores.api_keys.sql import SqlKeyStore
from stores.grants.sql import SqlGrantStore
from stores.sql.database import Database
from stores.sql.engine import migrate
from tools.grant_review import GrantWarning, review


@asynccontextmanager
async def _database(url: str) -> AsyncIterator[Database]:
    """An up-to-date database, for one command."""
    await migrate(url)
    database = Database.open(url)
    try:
        yield database
    finally:
        await database.close()


@asynccontextmanager
async def _keys(url: str) -> AsyncIterator[SqlKeyStore]:
    """The key store of an up-to-date database, for one command."""
    async with _database(url) as database:
        yield SqlKeyStore(database)


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


@asynccontextmanager
async def _grants(url: str) -> AsyncIterator[SqlGrantStore]:
    async with _database(url) as database:
        yield SqlGrantStore(database)


async def add_grant(url: str, grant: Grant) -> list[GrantWarning]:
    """Store the grant; the warnings of its review against the grants in force and the
    roles on the tenant's API keys (`tools.grant_review`)."""
    async with _database(url) as database:
        grants = SqlGrantStore(database)
        held = roles_by_principal(await SqlKeyStore(database).list(), grant.tenant)
        warnings = review(grant, await grants.list(grant.tenant), held)
        await grants.add(grant)
    return warnings


async def list_grants(url: str, tenant: str | None, include_revoked: bool) -> list[Grant]:
    async with _grants(url) as grants:
        return await grants.list(tenant, include_revoked=include_revoked)


async def revoke_grant(url: str, grant_id: str) -> bool:
    async with _grants(url) as grants:
        return await grants.revoke(grant_id)
