"""JWT bearer tokens: HS256 with a shared secret, RS256/ES256 with keys from a JWKS file.

Issuer, audience, expiry and not-before are always checked (a verifier is not
built without an issuer and an audience); `exp`, `iat` and `nbf` must be
numbers, and `exp` no further ahead than `max_lifetime_seconds`. With several
JWKS keys a token must name its key (`kid`) exactly. The principal is the
`sub` claim, its tenant the tenant claim (default `tenant`), its roles the
roles claim (default `roles`, a list of strings); each must be a name a store
can keep whole (`core.names`), or the token is refused.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt

from core.identity import Principal
from core.names import identity_problem, roles_problem


class TokenInvalid(Exception):  # noqa: N818 - a verdict, turned into UNAUTHENTICATED
    """The token is not acceptable; the reason is for the server log only."""


@dataclass(frozen=True, slots=True)
class TokenRules:
    issuer: str
    audience: str
    hs256_secret: str | None = None
    jwks_file: Path | None = None
    tenant_claim: str = "tenant"
    roles_claim: str = "roles"
    leeway_seconds: float = 30.0
    max_lifetime_seconds: float = 86_400.0
    """How far ahead a token's `exp` may lie: a token good for years is refused."""


class TokenVerifier:
    def __init__(self, rules: TokenRules) -> None:
        if not rules.issuer or not rules.audience:
            raise ValueError("JWT verification needs an issuer and an audience")
        if not rules.hs256_secret and rules.jwks_file is None:
            raise ValueError("JWT verification needs an HS256 secret or a JWKS file")
        if rules.hs256_secret is not None and len(rules.hs256_secret.encode()) < 32:
            raise ValueError("the HS256 secret must be at least 32 bytes")
        self._rules = rules
        self._keys: dict[str, jwt.PyJWK] = {}
        if rules.jwks_file is not None:
            keyset = jwt.PyJWKSet.from_json(rules.jwks_file.read_text())
            for key in keyset.keys:
                if key.algorithm_name not in ("RS256", "ES256"):
                    raise ValueError(f"JWKS key {key.key_id!r}: only RS256 and ES256 are accepted")
                self._keys[key.key_id or ""] = key

    def verify(self, token: str) -> Principal:
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError as error:
            raise TokenInvalid(f"unreadable header: {error}") from None
        algorithm = header.get("alg")
        key: Any
        if algorithm == "HS256" and self._rules.hs256_secret:
            key = self._rules.hs256_secret
        elif algorithm in ("RS256", "ES256") and self._keys:
            key = self._jwks_key(algorithm, header)
        else:
            raise TokenInvalid(f"algorithm {algorithm!r} is not accepted")
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                key,
                algorithms=[algorithm],
                issuer=self._rules.issuer,
                audience=self._rules.audience,
                leeway=self._rules.leeway_seconds,
                options={"require": ["exp", "iss", "aud", "sub"]},
            )
        except jwt.PyJWTError as error:
            raise TokenInvalid(str(error)) from None
        self._check_times(claims)
        subject = claims.get("sub")
        tenant = claims.get(self._rules.tenant_claim)
        roles = claims.get(self._rules.roles_claim, [])
        for name, problem in (
            ("sub", identity_problem(subject)),
            (self._rules.tenant_claim, identity_problem(tenant)),
            (self._rules.roles_claim, roles_problem(roles)),
        ):
            if problem is not None:
                raise TokenInvalid(f"{name} {problem}")
        return Principal(str(subject), str(tenant), tuple(roles))

    def _jwks_key(self, algorithm: str, header: dict[str, Any]) -> Any:
        """The key a token names; without a `kid` only when there is one key to use."""
        if "kid" in header:
            found = self._keys.get(header["kid"]) if isinstance(header["kid"], str) else None
        elif len(self._keys) == 1:
            found = next(iter(self._keys.values()))
        else:
            raise TokenInvalid("no kid and the JWKS has several keys")
        if found is None or found.algorithm_name != algorithm:
            raise TokenInvalid(f"no {algorithm} key {header.get('kid')!r}")
        return found.key

    def _check_times(self, claims: dict[str, Any]) -> None:
        for name in ("exp", "iat", "nbf"):
            value = claims.get(name)
            if name in claims and (isinstance(value, bool) or not isinstance(value, int | float)):
                raise TokenInvalid(f"{name} is not a number")
        horizon = time.time() + self._rules.max_lifetime_seconds + self._rules.leeway_seconds
        if claims["exp"] > horizon:
            raise TokenInvalid(f"exp lies more than {self._rules.max_lifetime_seconds:g} s ahead")
