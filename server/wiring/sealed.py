"""The stores that keep secrets sealed with the server's keys (`core.keyring`), in one
place: what `agentd keys reencrypt` walks, and what start-up seals when it finds secrets
stored in plain text before there was a key."""

from __future__ import annotations

import structlog

from core.keyring import KeyRing, SealedValues
from stores.push_configs.sql import SqlPushConfigStore
from stores.sql.database import Database

log = structlog.get_logger(__name__)


def sealed_stores(database: Database, ring: KeyRing) -> dict[str, SealedValues]:
    """Every store that keeps sealed values, by what it keeps (a store that keeps a secret
    adds itself here, and `agentd keys reencrypt` moves its values to the current key)."""
    return {"push notification credentials": SqlPushConfigStore(database, ring)}


async def seal_at_start(database: Database, ring: KeyRing) -> None:
    """With a key: seal the push notifications' tokens and credentials still kept in plain
    text (said with a count; safe when replicas start together: a row is updated only
    while it holds what was read). Without one: warn when there are any."""
    push = SqlPushConfigStore(database, ring)
    if ring.present:
        count = await push.seal_plain(ring)
        if count:
            log.info(
                "sealed push notification credentials kept in plain text",
                count=count,
                key_id=ring.current_id,
            )
        return
    plain = await push.plain_count()
    if plain:
        log.warning(
            "push notification credentials are kept in plain text: set AGENTD_KEYS "
            "(docs/keys.md) and they are sealed at the next start",
            count=plain,
        )
