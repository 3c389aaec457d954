"""The server's keys: secrets kept encrypted at rest, and anything else every replica
must seal or sign alike.

AGENTD_KEYS holds a list of keys (each 32 random bytes in base64; `agentd keys new`
makes one), the first the current one; every replica holds the same list. A key is
never used as it is: each use (`purpose`, e.g. `webhook-secret`, `push-credentials`)
gets its own sub-key through HKDF-SHA256, so a value sealed for one use can never be
opened as another. Sealing is AES-256-GCM with a random nonce; what the value belongs
to (a row's key, `bind(...)`) may be bound in as associated data, so a sealed value
copied into another row does not open there.

A sealed value is text: `enc:v1:<key id>:<base64url of nonce and ciphertext>`, the key
id being the first 8 hex digits of the key's SHA-256. Rotating: put a new key first and
keep the old ones after it; values sealed with an old key still open, and
`agentd keys reencrypt` moves them to the current one (`KeyRing.current_id` tells which
are behind). A ring without keys opens nothing and seals nothing (`KeyRequiredError`).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
from collections.abc import Sequence
from typing import Protocol

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from core.errors import KeyRequiredError

PREFIX = "enc:v1:"
"""How every sealed value begins (a value without it was stored before it had a key)."""
KEY_BYTES = 32
NONCE_BYTES = 12


class SealedValueError(ValueError):
    """A sealed value that cannot be opened: malformed, sealed with a key the ring no
    longer holds, for another purpose or row, or altered."""


def new_key() -> str:
    """A fresh key for AGENTD_KEYS (32 random bytes, base64)."""
    return base64.b64encode(os.urandom(KEY_BYTES)).decode()


def parse_key(text: str) -> bytes:
    """A key from its base64 text (standard or URL-safe, padded or not); ValueError
    naming the problem, never the key, when it is not 32 bytes of base64."""
    cleaned = text.strip()
    padded = cleaned + "=" * (-len(cleaned) % 4)
    try:
        raw = base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("a key of AGENTD_KEYS is not base64") from None
    if len(raw) != KEY_BYTES:
        raise ValueError(f"a key of AGENTD_KEYS is {len(raw)} bytes, not {KEY_BYTES}")
    return raw


def key_id(key: bytes) -> str:
    """The id a sealed value names its key by."""
    return hashlib.sha256(key).hexdigest()[:8]


def is_sealed(value: str) -> bool:
    """Whether a stored value is sealed (else it was stored in plain text, before any key)."""
    return value.startswith(PREFIX)


class KeyRing:
    """The server's keys, the first current; see the module docstring."""

    def __init__(self, keys: Sequence[bytes] = ()) -> None:
        for key in keys:
            if len(key) != KEY_BYTES:
                raise ValueError(f"a key is {len(key)} bytes, not {KEY_BYTES}")
        self._keys = {key_id(key): key for key in keys}
        if len(self._keys) != len(keys):
            raise ValueError("AGENTD_KEYS names the same key twice")
        self._current = key_id(keys[0]) if keys else ""
        self._subkeys: dict[tuple[str, str], AESGCM] = {}

    @classmethod
    def parse(cls, texts: Sequence[str]) -> KeyRing:
        """A ring from AGENTD_KEYS' entries (empty entries are skipped)."""
        return cls([parse_key(text) for text in texts if text.strip()])

    @property
    def present(self) -> bool:
        """Whether the ring holds a key (it can seal)."""
        return bool(self._current)

    @property
    def current_id(self) -> str:
        """The current key's id ("" without keys)."""
        return self._current

    def ids(self) -> tuple[str, ...]:
        """Every key's id, the current first."""
        return tuple(self._keys)

    def sealed_with(self, sealed: str) -> str:
        """The id of the key `sealed` was sealed with ("" for a value not sealed)."""
        if not is_sealed(sealed):
            return ""
        return sealed[len(PREFIX) :].partition(":")[0]

    def derive(self, purpose: str, kid: str = "") -> bytes:
        """The sub-key of `purpose` under key `kid` (the current one by default), for uses
        that sign rather than seal. KeyRequiredError without keys."""
        kid = kid or self._current
        key = self._keys.get(kid)
        if key is None:
            if not self._current:
                raise KeyRequiredError(purpose)
            raise SealedValueError(f"no key {kid!r} in AGENTD_KEYS")
        info = b"agentd/" + purpose.encode()
        return HKDF(algorithm=hashes.SHA256(), length=KEY_BYTES, salt=None, info=info).derive(key)

    def _aead(self, purpose: str, kid: str) -> AESGCM:
        cached = self._subkeys.get((purpose, kid))
        if cached is None:
            cached = AESGCM(self.derive(purpose, kid))
            self._subkeys[(purpose, kid)] = cached
        return cached

    def seal(self, purpose: str, plaintext: bytes, bound_to: bytes = b"", *, what: str = "") -> str:
        """`plaintext` sealed with the current key for `purpose` (and the row `bound_to`
        names). KeyRequiredError (naming `what`, else the purpose) without keys."""
        if not self._current:
            raise KeyRequiredError(what or purpose)
        nonce = os.urandom(NONCE_BYTES)
        box = self._aead(purpose, self._current).encrypt(
            nonce, plaintext, _bound(purpose, bound_to)
        )
        text = base64.urlsafe_b64encode(nonce + box).decode().rstrip("=")
        return f"{PREFIX}{self._current}:{text}"

    def open(self, purpose: str, sealed: str, bound_to: bytes = b"", *, what: str = "") -> bytes:
        """What `seal` sealed; SealedValueError when it cannot be opened, KeyRequiredError
        (naming `what`, else the purpose) when the ring holds no key at all."""
        if not is_sealed(sealed):
            raise SealedValueError("the value is not sealed")
        kid, _, text = sealed[len(PREFIX) :].partition(":")
        if kid not in self._keys:
            if not self._current:
                raise KeyRequiredError(what or purpose)
            raise SealedValueError(f"sealed with key {kid!r}, which AGENTD_KEYS no longer holds")
        try:
            raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        except (binascii.Error, ValueError):
            raise SealedValueError("the sealed value is malformed") from None
        if len(raw) <= NONCE_BYTES:
            raise SealedValueError("the sealed value is malformed")
        try:
            return self._aead(purpose, kid).decrypt(
                raw[:NONCE_BYTES], raw[NONCE_BYTES:], _bound(purpose, bound_to)
            )
        except InvalidTag:
            raise SealedValueError(
                "the sealed value does not open: altered, or sealed for another use or row"
            ) from None

    def reseal(self, purpose: str, stored: str, bound_to: bytes = b"", *, what: str = "") -> str:
        """`stored` under the current key: itself when it already is, sealed when it was
        kept in plain text (stored before there was a key), else opened and sealed again.
        KeyRequiredError without keys; SealedValueError when it does not open."""
        if not self._current:
            raise KeyRequiredError(what or purpose)
        if not is_sealed(stored):
            return self.seal(purpose, stored.encode(), bound_to)
        if self.sealed_with(stored) == self._current:
            return stored
        return self.seal(purpose, self.open(purpose, stored, bound_to), bound_to)


def bind(*parts: str) -> bytes:
    """`bound_to` for a row named by `parts` (its key's columns, say): each part
    length-prefixed, so that no two different rows give the same bytes (joined with a
    separator, ("a:b", "c") and ("a", "b:c") would)."""
    encoded = [part.encode() for part in parts]
    return b"".join(len(part).to_bytes(4, "big") + part for part in encoded)


def _bound(purpose: str, bound_to: bytes) -> bytes:
    return purpose.encode() + b"\x00" + bound_to


class SealedValues(Protocol):
    """A store that keeps sealed values (`agentd keys reencrypt` walks each)."""

    async def reseal(self, ring: KeyRing) -> int:
        """Seal every value it keeps with `ring`'s current key (values stored in plain text
        before there was a key, and values sealed with an older key); how many changed. A
        value that does not open (its key gone from the ring, or altered) is left as it is
        and logged. Safe to run on several replicas at once, and while the store is used."""
        ...
