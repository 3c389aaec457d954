"""JWT bearer tokens: HS256 with a shared secret, RS256/ES256 with keys from a JWKS file.

Issuer, audience, expiry and not-before are always checked (a verifier is not
built without an issuer and an audience). The principal is the `sub` claim,
its tenant the tenant claim (default `tenant`), its roles the roles claim
(default `roles`, a list of strings).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt

from core.identity import Principal


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
            kid = header.get("kid")
            found = self._keys.get(kid) if kid else next(iter(self._keys.values()))
            if kid is None and len(self._keys) > 1:
                raise TokenInvalid("no kid and the JWKS has several keys")
            if found is None or found.algorithm_name != algorithm:
                raise TokenInvalid(f"no {algorithm} key {kid!r}")
            key = found.key
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
        subject = claims.get("sub")
        tenant = claims.get(self._rules.tenant_claim)
        roles = claims.get(self._rules.roles_claim, [])
        if not isinstance(subject, str) or not subject:
            raise TokenInvalid("sub is not a non-empty string")
        if not isinstance(tenant, str) or not tenant:
            raise TokenInvalid(f"{self._rules.tenant_claim} is not a non-empty string")
        if not isinstance(roles, list) or not all(isinstance(r, str) for r in roles):
            raise TokenInvalid(f"{self._rules.roles_claim} is not a list of strings")
        return Principal(subject, tenant, tuple(roles))
