"""API keys: `agd_<key id>_<secret>`, stored as the key id and a SHA-256 digest of the secret.

The secret is 32 random bytes, so a plain SHA-256 digest is enough (there is
nothing to brute-force, unlike a password) and lets every call be checked in
microseconds. The plaintext is shown once, when the key is created, and never
stored. A revoked key stays listed, with its revocation time.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from core.names import identity_problem, roles_problem

KEY_PATTERN = re.compile(r"^agd_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$")


@dataclass(frozen=True, slots=True)
class ApiKey:
    key_id: str
    tenant: str
    principal: str
    roles: tuple[str, ...]
    created_at: datetime
    revoked_at: datetime | None = None
    secret_sha256: str = ""

    @property
    def active(self) -> bool:
        return self.revoked_at is None

    def matches(self, secret: str) -> bool:
        """Whether `secret` is this key's secret (in constant time)."""
        return hmac.compare_digest(secret_sha256(secret), self.secret_sha256)


def secret_sha256(secret: str) -> str:
    """What a key record keeps of its secret."""
    return hashlib.sha256(secret.encode()).hexdigest()


def new_key(tenant: str, principal: str, roles: tuple[str, ...]) -> tuple[ApiKey, str]:
    """A new key and its plaintext (the only time the plaintext exists)."""
    for what, problem in (
        ("tenant", identity_problem(tenant)),
        ("principal", identity_problem(principal)),
        ("roles", roles_problem(list(roles))),
    ):
        if problem is not None:
            raise ValueError(f"the key's {what} {problem}")
    key_id = secrets.token_hex(6)
    secret = secrets.token_urlsafe(32)
    key = ApiKey(
        key_id, tenant, principal, tuple(roles), datetime.now(UTC), None, secret_sha256(secret)
    )
    return key, f"agd_{key_id}_{secret}"


def parse(plaintext: str) -> tuple[str, str] | None:
    """(key id, secret) of something shaped like a key, else None."""
    match = KEY_PATTERN.fullmatch(plaintext)
    return (match.group(1), match.group(2)) if match else None


def roles_by_principal(keys: Iterable[ApiKey], tenant: str) -> dict[str, list[tuple[str, ...]]]:
    """Each principal of `tenant` with an active key, and the roles of each of its active
    keys (what a grant's review counts a principal as holding)."""
    held: dict[str, list[tuple[str, ...]]] = {}
    for key in keys:
        if key.active and key.tenant == tenant:
            held.setdefault(key.principal, []).append(key.roles)
    return held
