"""Keeping secrets out of logs, events and audit records.

Two nets: values under secret-looking keys (password, token, authorization,
...) are replaced whole, and any string that contains something shaped like
a credential (an agentd API key, a bearer token, a JWT, or a pattern the
operator configured with AGENTD_SECRET_PATTERNS) has that part replaced.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

REDACTED = "[REDACTED]"
SECRET_KEY_WORDS = (
    "password",
    "passwd",
    "secret",
    "token",
    "api_key",
    "apikey",
    "authorization",
    "cookie",
    "credential",
    "credentials",
    "private_key",
)
_SECRET_KEY = re.compile(r"(?:^|_)(?:" + "|".join(SECRET_KEY_WORDS) + r")(?:_|$)")
BUILTIN_PATTERNS = (
    r"agd_[0-9a-f]{12}_[A-Za-z0-9_-]{20,}",  # agentd API keys
    r"(?i:bearer)\s+[A-Za-z0-9._~+/=-]{8,}",  # bearer credentials in any header or text
    r"eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*",  # JWTs
    r"sk-[A-Za-z0-9_-]{20,}",  # OpenAI-style keys
)

_patterns: re.Pattern[str] = re.compile("|".join(f"(?:{p})" for p in BUILTIN_PATTERNS))


def configure(extra_patterns: Iterable[str] = ()) -> None:
    """Add the operator's patterns (regular expressions) to the built-in ones."""
    global _patterns
    extra = list(extra_patterns)
    for pattern in extra:
        re.compile(pattern)  # a bad pattern fails here, at start-up
    _patterns = re.compile("|".join(f"(?:{p})" for p in (*BUILTIN_PATTERNS, *extra)))


def secret_key(key: object) -> bool:
    """Whether a key names a secret: `password`, `X-Api-Key`, `access_token`, `Set-Cookie`
    do; `tokens`, `total_tokens`, `tokenizer` do not."""
    words = re.sub(r"[^a-z0-9]+", "_", str(key).lower())
    return _SECRET_KEY.search(words) is not None


def scrub(text: str) -> str:
    """`text` with every credential-shaped part replaced."""
    return _patterns.sub(REDACTED, text)


def redact(value: Any) -> Any:
    """A copy of `value` (JSON-like) with secrets replaced: by key and by shape."""
    if isinstance(value, Mapping):
        return {k: REDACTED if secret_key(k) else redact(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact(v) for v in value]
    if isinstance(value, str):
        return scrub(value)
    return value
