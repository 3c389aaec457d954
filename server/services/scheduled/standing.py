"""Who a stored principal is now: a schedule (or an inbound trigger) keeps the principal
that created it, and each run resolves it again before anything starts.

With API keys as the authentication (a key store given), a principal that has held keys
of its tenant must still hold an active one: when every key it had is revoked, the run is
refused (PrincipalStandingError, PERMISSION_DENIED, naming the principal and why);
otherwise its roles are those of its newest active key, now (a key re-issued with fewer
roles narrows the run). A principal that never held a key (one a token or a gateway
vouched for) is kept as it was. The task then starts as that principal, so grants decide
as for any caller.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from core.errors import PrincipalStandingError
from core.identity import Principal
from stores.api_keys.base import KeyStore

Resolve = Callable[[Principal], Awaitable[Principal]]
"""What resolves a stored principal again (a `Standing`; `as_stored` where nothing is
ever revoked)."""


async def as_stored(principal: Principal) -> Principal:
    """The principal as it was stored (nothing to resolve it against)."""
    return principal


@dataclass(frozen=True, slots=True)
class Standing:
    keys: KeyStore | None = None
    """The API keys, when they are the authentication; None for none."""

    @classmethod
    def of(cls, auth: str, keys: KeyStore) -> Standing:
        """With authentication on (AGENTD_AUTH not `off`), against `keys`."""
        return cls(keys if auth != "off" else None)

    async def __call__(self, principal: Principal) -> Principal:
        """`principal` as it stands now; PrincipalStandingError when its keys are revoked."""
        return await standing(principal, self.keys)


async def standing(principal: Principal, keys: KeyStore | None) -> Principal:
    """`principal` as it stands now (see the module); PrincipalStandingError when it held
    API keys of its tenant and holds no active one any more."""
    if keys is None:
        return principal
    held = await keys.held_by(principal.tenant, principal.id)
    if not held:
        return principal
    active = [key for key in held if key.active]
    if not active:
        why = f"its API keys of tenant {principal.tenant!r} were revoked"
        raise PrincipalStandingError(principal.id, why)
    newest = max(active, key=lambda key: key.created_at)
    return replace(principal, roles=tuple(newest.roles))
