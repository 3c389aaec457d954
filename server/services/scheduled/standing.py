"""Who a stored principal is now: a schedule (or an inbound trigger) keeps the principal
that created it, and each run resolves it again before anything starts.

With API keys as the authentication (a key store given), a principal that has held keys
of its tenant must still hold an active one: when every key it had is revoked, the run is
refused (StandingLostError, PERMISSION_DENIED, naming the principal); otherwise its roles
are those of its newest active key, now (a key re-issued with fewer roles narrows the
run). A principal that never held a key (one a token vouched for) is kept as it was.
The task then starts as that principal, so grants decide as for any caller.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from core.errors import StandingLostError
from core.identity import Principal
from stores.api_keys.base import KeyStore


@dataclass(frozen=True, slots=True)
class Standing:
    keys: KeyStore | None = None
    """The API keys, when they are the authentication; None for none."""

    async def __call__(self, principal: Principal) -> Principal:
        """`principal` as it stands now; StandingLostError when its keys are revoked."""
        return await standing(principal, self.keys)


async def standing(principal: Principal, keys: KeyStore | None) -> Principal:
    """`principal` as it stands now (see the module); StandingLostError when it held
    API keys of its tenant and holds no active one any more."""
    if keys is None:
        return principal
    held = [
        key
        for key in await keys.list()
        if key.tenant == principal.tenant and key.principal == principal.id
    ]
    if not held:
        return principal
    active = [key for key in held if key.active]
    if not active:
        raise StandingLostError(principal.id, principal.tenant)
    newest = max(active, key=lambda key: key.created_at)
    return replace(principal, roles=tuple(newest.roles))
