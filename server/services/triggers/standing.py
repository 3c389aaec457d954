"""Whether a stored principal may still start a task (a trigger's creator, at each of
its deliveries).

MERGE NOTE: this is the triggers' own minimal resolver, to be replaced at merge by the
one shared with schedules (`server.services.scheduled.standing`); the delivery takes any
`Standing` callable, so the merge only changes what `server.wiring` passes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from core.errors import PrincipalStandingError
from core.identity import Principal
from stores.api_keys.base import KeyStore

Standing = Callable[[Principal], Awaitable[Principal]]
"""The principal as it stands now (its roles as its key holds them); an AgentdError
(PERMISSION_DENIED, the reason named) when it may no longer start a task."""


async def as_stored(principal: Principal) -> Principal:
    """With auth off (no keys to revoke): the principal as it was stored."""
    return principal


class KeyStanding:
    """With API keys as the auth: the principal must still hold an active key of its
    tenant; its roles are that key's (a key re-issued with fewer roles gives fewer)."""

    def __init__(self, keys: KeyStore) -> None:
        self._keys = keys

    async def __call__(self, principal: Principal) -> Principal:
        held = [
            key
            for key in await self._keys.list()
            if key.principal == principal.id and key.tenant == principal.tenant
        ]
        active = [key for key in held if key.active]
        if not active:
            why = "its API keys were revoked" if held else "it holds no API key"
            raise PrincipalStandingError(principal.id, f"{why} (tenant {principal.tenant!r})")
        roles = tuple(dict.fromkeys(role for key in active for role in key.roles))
        return Principal(principal.id, principal.tenant, roles)
