"""`agentd keys new` and `agentd keys reencrypt`: the server's own keys (AGENTD_KEYS, the
key ring that seals secrets at rest: docs/keys.md), not the API keys of the other
`agentd keys` commands."""

from __future__ import annotations

import asyncio
import sys
from typing import TYPE_CHECKING

from core.keyring import KeyRing, new_key

if TYPE_CHECKING:
    from server.settings import Settings


def print_new_key() -> int:
    """A fresh key for AGENTD_KEYS, alone on its line."""
    print(new_key())
    return 0


async def _reencrypt(url: str, ring: KeyRing) -> dict[str, int]:
    from server.wiring.stores import sealed_stores
    from stores.sql.database import Database
    from stores.sql.engine import migrate

    await migrate(url)
    database = Database.open(url)
    try:
        stores = sealed_stores(database, ring)
        return {what: await store.reseal(ring) for what, store in stores.items()}
    finally:
        await database.close()


def reencrypt(settings: Settings) -> int:
    """Every sealed value (and any still kept in plain text) moved to the current key of
    AGENTD_KEYS; prints how many, store by store. Run it once every replica holds the
    current key; values that do not open are left as they are, and logged."""
    from server import logs

    ring = settings.key_ring()
    if not ring.present:
        print(
            "agentd keys reencrypt: AGENTD_KEYS is not set: there is no key to move values to",
            file=sys.stderr,
        )
        return 2
    logs.configure(settings.log_level, settings.log_format)  # on stderr
    moved = asyncio.run(_reencrypt(settings.database_url, ring))
    for what, count in moved.items():
        print(f"{what}: {count} moved")
    print(f"moved {sum(moved.values())} values to key {ring.current_id}")
    return 0
