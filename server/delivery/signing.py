"""Standard Webhooks signatures (https://www.standardwebhooks.com): a delivery carries
`webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature`
(`v1,<base64 of HMAC-SHA256 over "<id>.<timestamp>.<body>">`), keyed with the secret's
bytes; a secret is `whsec_` and 24 to 64 random bytes in base64. The same primitive
signs outbound deliveries (webhooks) and verifies inbound ones (triggers)."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os

PREFIX = "whsec_"
MIN_SECRET_BYTES = 24
MAX_SECRET_BYTES = 64
NEW_SECRET_BYTES = 32


def new_secret() -> str:
    """A fresh signing secret."""
    return PREFIX + base64.b64encode(os.urandom(NEW_SECRET_BYTES)).decode()


def secret_problem(secret: str) -> str | None:
    """Why `secret` is not a signing secret; None when it is."""
    if not secret.startswith(PREFIX):
        return f"must begin with {PREFIX}"
    try:
        raw = _key(secret)
    except (binascii.Error, ValueError):
        return f"must be {PREFIX} and base64"
    if not MIN_SECRET_BYTES <= len(raw) <= MAX_SECRET_BYTES:
        return f"must hold {MIN_SECRET_BYTES} to {MAX_SECRET_BYTES} bytes (it holds {len(raw)})"
    return None


def _key(secret: str) -> bytes:
    text = secret.removeprefix(PREFIX)
    return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)


def signature(secret: str, event_id: str, timestamp: int, body: bytes) -> str:
    """`v1,<base64>`: the signature of `body` sent as `event_id` at `timestamp`."""
    signed = f"{event_id}.{timestamp}.".encode() + body
    digest = hmac.new(_key(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def verifies(secret: str, event_id: str, timestamp: int, body: bytes, header: str) -> bool:
    """Whether one of the space-separated signatures of a `webhook-signature` `header`
    is `secret`'s of `body` sent as `event_id` at `timestamp` (compared in constant time;
    signatures of other versions than `v1` are passed over)."""
    expected = signature(secret, event_id, timestamp, body).encode()
    found = False
    for given in header.split():
        if given.startswith("v1,") and hmac.compare_digest(given.encode(), expected):
            found = True  # no early return: the time taken does not say which one matched
    return found


def signed_headers(
    secret: str, event_id: str, timestamp: int, body: bytes
) -> list[tuple[str, str]]:
    """The headers of a signed delivery (with its content type)."""
    return [
        ("content-type", "application/json"),
        ("webhook-id", event_id),
        ("webhook-timestamp", str(timestamp)),
        ("webhook-signature", signature(secret, event_id, timestamp, body)),
    ]
