"""Turning a call's credentials into a principal, or refusing them.

Credentials arrive as `authorization: Bearer <API key or JWT>` or
`x-api-key: <API key>`. Whatever is wrong (nothing sent, a malformed value,
an unknown, revoked or mismatched key, a bad signature, an expired token, a
wrong issuer or audience) the caller gets the same UnauthenticatedError; the
reason goes to the server log only. Keys are cached for `cache_seconds`, so a
revocation takes effect within that time on every replica.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

import structlog

from core.errors import UnauthenticatedError
from core.identity import Principal
from records.keys import ApiKey, parse
from stores.api_keys.base import KeyStore

if TYPE_CHECKING:  # PyJWT is imported only when tokens are accepted (start-up time)
    from auth.tokens import TokenVerifier

log = structlog.get_logger(__name__)

MAX_CREDENTIAL_LENGTH = 8192


class AmbiguousCredentialsError(Exception):
    """More than one credential in a call: which one counts is not guessed."""


def credential_from(metadata: Iterable[tuple[str, str | bytes]] | None) -> str | None:
    """The bearer credential or API key in call metadata, if any.

    Raises AmbiguousCredentialsError when there are two (two `authorization`
    headers, or one beside an `x-api-key`): a proxy that adds its own header
    must not decide, by its order, whose call this is."""
    found: list[str] = []
    for key, value in metadata or ():
        if key not in ("authorization", "x-api-key"):
            continue
        if not isinstance(value, str):
            found.append("")
        elif key == "authorization":
            scheme, _, rest = value.strip().partition(" ")
            found.append(rest.strip() if scheme.lower() == "bearer" else "")
        else:
            found.append(value.strip())
    if len(found) > 1:
        raise AmbiguousCredentialsError
    return found[0] if found else None


class Authenticator:
    def __init__(
        self,
        keys: KeyStore,
        tokens: TokenVerifier | None = None,
        *,
        cache_seconds: float = 5.0,
    ) -> None:
        self._keys = keys
        self._tokens = tokens
        self._cache_seconds = cache_seconds
        self._cache: dict[str, tuple[float, ApiKey | None]] = {}

    async def authenticate(self, metadata: Iterable[tuple[str, str | bytes]] | None) -> Principal:
        try:
            credential = credential_from(metadata)
        except AmbiguousCredentialsError:
            raise self._refuse("more than one credential") from None
        if not credential:
            raise self._refuse("no credentials")
        if len(credential) > MAX_CREDENTIAL_LENGTH:
            raise self._refuse("credential too long")
        parsed = parse(credential)
        if parsed is not None:
            return await self._by_key(*parsed)
        if credential.count(".") == 2 and self._tokens is not None:
            from auth.tokens import TokenInvalid  # loaded with the verifier already

            try:
                return self._tokens.verify(credential)
            except TokenInvalid as why:
                raise self._refuse(f"token refused: {why}") from None
        raise self._refuse("neither an API key nor an accepted token")

    def known(self, metadata: Iterable[tuple[str, str | bytes]] | None) -> Principal | None:
        """The caller, when its credential is an API key this process recently found good;
        None otherwise (nothing is looked up)."""
        try:
            parsed = parse(credential_from(metadata) or "")
        except AmbiguousCredentialsError:
            return None
        if parsed is None:
            return None
        key_id, secret = parsed
        cached = self._cached(key_id)
        if cached is None or self._refusal(cached[0], secret, key_id) is not None:
            return None
        assert cached[0] is not None
        return _principal(cached[0])

    async def _by_key(self, key_id: str, secret: str) -> Principal:
        cached = self._cached(key_id)
        if cached is not None:
            key = cached[0]
        else:
            key = await self._keys.get(key_id)
            if len(self._cache) > 10_000:
                self._cache.clear()
            self._cache[key_id] = (time.monotonic(), key)
        why = self._refusal(key, secret, key_id)
        if why is not None:
            raise self._refuse(why)
        assert key is not None
        return _principal(key)

    def _cached(self, key_id: str) -> tuple[ApiKey | None] | None:
        """(the key, or None for no such key) while the cache still vouches for it."""
        entry = self._cache.get(key_id)
        if entry is None or time.monotonic() - entry[0] >= self._cache_seconds:
            return None
        return (entry[1],)

    @staticmethod
    def _refusal(key: ApiKey | None, secret: str, key_id: str) -> str | None:
        """Why `secret` does not let its holder in as `key`; None when it does."""
        if key is None or not key.matches(secret):
            return f"unknown key or wrong secret (key id {key_id})"
        if not key.active:
            return f"revoked key {key_id}"
        return None

    def _refuse(self, why: str) -> UnauthenticatedError:
        log.info("credentials refused", why=why)
        return UnauthenticatedError()


def _principal(key: ApiKey) -> Principal:
    return Principal(key.principal, key.tenant, key.roles)
