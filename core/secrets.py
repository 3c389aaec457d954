"""Keeping secrets out of logs, events and audit records.

Two nets: values under secret-looking keys (password, token, authorization,
clientSecret, access-key, ...) are replaced whole, and any string that
contains something shaped like a credential has that part replaced:

- agentd API keys, bearer credentials, JWTs, OpenAI-style `sk-` keys;
- GitHub tokens (`ghp_ gho_ ghu_ ghs_ ghr_`, `github_pat_`), AWS access key ids
  (`AKIA...`, `ASIA...`), AWS secret access keys after a name that says AWS
  (`aws=...`, `aws_secret_access_key = ...`, `"aws": "..."`), Slack tokens
  (`xox?-`), Google API keys (`AIza...`), PEM private key blocks;
- the user info of a URL (`https://user:pass@host`), and the values of
  secret-looking query parameters (`?access_token=...&sig=...`);
- `password=...`, `secret: ...` and the like written out in text;
- the patterns the operator configured (AGENTD_SECRET_PATTERNS).

Text that arrives in pieces (a model's streamed reply) goes through a
`StreamRedactor`, which holds back the tail that could still be the start of
a secret, so a key split across two pieces is caught whole.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from typing import Any

import re2

REDACTED = "[REDACTED]"
SECRET_KEY_WORDS = (
    "password",
    "passwd",
    "pwd",
    "passphrase",
    "secret",
    "token",
    "api_key",
    "apikey",
    "access_key",
    "secret_key",
    "private_key",
    "authorization",
    "cookie",
    "credential",
    "credentials",
    "signature",
)
_SECRET_KEY = re.compile(r"(?:^|_)(?:" + "|".join(SECRET_KEY_WORDS) + r")(?:_|$)")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_QUERY_NAMES = (
    r"access_token|id_token|refresh_token|token|api_?key|apikey|key|secret|client_secret|"
    r"password|passwd|pwd|sig|signature|auth|code|x-amz-signature|x-amz-credential|"
    r"x-amz-security-token|x-goog-signature"
)
_NAMED = (  # a name that announces a secret: password, clientSecret, "db_password"
    r"\b[A-Za-z0-9_.-]{0,64}(?i:password|passwd|pwd|secret|token|api_?key)"
    r"(?:[_-][A-Za-z]+|[A-Z][a-z]+)*[\"']?"
)
_AWS_NAME = (  # aws, aws_secret_access_key, AWS_SECRET, "my AWS key": a name that says AWS
    r"(?<![A-Za-z0-9])(?:[A-Za-z0-9]{1,20}[_.-]){0,3}(?i:aws)[A-Za-z0-9]*"
    r"(?:[ _.-][A-Za-z]{1,20}){0,4}\\?[\"']?"  # \" too: the name in JSON held as text
)
BUILTIN_PATTERNS = (
    r"agd_[0-9a-f]{12}_[A-Za-z0-9_-]{20,}",  # agentd API keys
    r"(?i:bearer)\s+[A-Za-z0-9._~+/=-]{8,}",  # bearer credentials in any header or text
    r"eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*",  # JWTs
    r"sk-[A-Za-z0-9_-]{20,}",  # OpenAI-style keys
    r"gh[pousr]_[A-Za-z0-9]{30,}",  # GitHub tokens
    r"github_pat_[A-Za-z0-9_]{22,}",  # GitHub fine-grained tokens
    r"(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}",  # AWS access key ids
    r"xox[abposr]-[A-Za-z0-9-]{10,}",  # Slack tokens
    r"AIza[0-9A-Za-z_-]{35}",  # Google API keys
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
    r"(?<=://)[^/\s@:]+:[^/\s@]+(?=@)",  # user:password in a URL
    # The parts a replacement keeps come first, in a group named keep<n>.
    r"(?P<keep1>[?&;](?i:" + _QUERY_NAMES + r")=)[^&#\s\"']+",  # secret query values
    # password=..., clientSecret: ..., "db_password": "..." written out in text
    r"(?P<keep2>" + _NAMED + r"\s?[=:]\s?[\"']?)[^\s,;&\"']{4,}",
    # an AWS secret access key (40 characters) after a name that says AWS: aws=...
    r"(?P<keep3>" + _AWS_NAME + r"\s?[=:]\s?\\?[\"']?)[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])",
)

_patterns: re.Pattern[str] = re.compile("|".join(f"(?:{p})" for p in BUILTIN_PATTERNS))

TRIGGERS = (
    r"agd_|eyJ|sk-|gh[pousr]_|github_pat_|AKIA|ASIA|ABIA|ACCA|xox|AIza|-----BEGIN|://|"
    r"(?i:bearer|passw|pwd|secret|token|api_?key|aws)|"
    r"[?&;](?i:" + _QUERY_NAMES + r")=|"
    r"[\x{130}\x{131}\x{17f}\x{212a}]"  # letters re folds into i, s, k where RE2 may not
)
"""What every built-in pattern's match contains (a literal, or the start of a secret
query parameter): a text with none of them has nothing to scrub. Found by RE2 in linear
time, so most text (prose without a credential's mark) is never run through the
patterns, whose backtracking search costs far more (AGENTD_SECRET_PATTERNS turns this
off: an operator's pattern may match anywhere)."""
_triggers: Any = re2.compile(TRIGGERS)


def configure(extra_patterns: Iterable[str] = ()) -> None:
    """Add the operator's patterns (regular expressions) to the built-in ones."""
    global _patterns
    global _triggers
    extra = list(extra_patterns)
    for pattern in extra:
        re.compile(pattern)  # a bad pattern fails here, at start-up
    _patterns = re.compile("|".join(f"(?:{p})" for p in (*BUILTIN_PATTERNS, *extra)))
    _triggers = re2.compile(TRIGGERS) if not extra else None
    _scrubbed.cache_clear()


def secret_key(key: object) -> bool:
    """Whether a key names a secret: `password`, `X-Api-Key`, `access_token`, `Set-Cookie`,
    `clientSecret`, `accessToken` do; `tokens`, `total_tokens`, `tokenizer` do not."""
    words = re.sub(r"[^a-z0-9]+", "_", _CAMEL.sub("_", str(key)).lower())
    return _SECRET_KEY.search(words) is not None


def _replace(match: re.Match[str]) -> str:
    kept = match.group("keep1") or match.group("keep2") or match.group("keep3") or ""
    return kept + REDACTED


def scrub(text: str) -> str:
    """`text` with every credential-shaped part replaced."""
    if _triggers is not None and not _marked(text):
        return text
    return _patterns.sub(_replace, text)


def _marked(text: str) -> bool:
    """Whether `text` may hold something the patterns match (a text RE2 cannot take, one
    with a lone surrogate, is searched by the patterns)."""
    try:
        return _triggers.search(text) is not None
    except UnicodeEncodeError:
        return True


@functools.lru_cache(maxsize=256)
def _scrubbed(text: str) -> str:
    return scrub(text)


def scrub_repeated(text: str) -> str:
    """`scrub` for text that comes again and again (an agent's instructions and its
    tools' descriptions open every prompt of its tasks): a long text's result is kept for
    the next time (the last 256 of them; `configure` forgets them)."""
    return _scrubbed(text) if len(text) >= 512 else scrub(text)


def redact(value: Any) -> Any:
    """A copy of `value` (JSON-like) with secrets replaced: by key and by shape."""
    if isinstance(value, Mapping):
        return {k: REDACTED if secret_key(k) else redact(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact(v) for v in value]
    if isinstance(value, str):
        return scrub(value)
    return value


_OPENING = re.compile(r"(?:(?i:bearer)\s?|(?:" + _NAMED + "|" + _AWS_NAME + r")\s?[=:]?\s?[\"']?)$")
_PEM_START = "-----BEGIN"
_PEM_END = re.compile(r"-----END [A-Z ]*-----")


class StreamRedactor:
    """Redacts text that arrives in pieces: `feed` returns what may go out now, `flush`
    the rest. It holds back the last word (a secret has no spaces, or starts with one
    of the words that announce it), and a private key block until it ends, never more
    than `max_hold` characters."""

    def __init__(self, max_hold: int = 8192) -> None:
        self._pending = ""
        self._max_hold = max_hold

    def feed(self, text: str) -> str:
        self._pending += text
        cut = self._cut(self._pending)
        settled, self._pending = self._pending[:cut], self._pending[cut:]
        return scrub(settled)

    def flush(self) -> str:
        out, self._pending = scrub(self._pending), ""
        return out

    def _cut(self, text: str) -> int:
        """Where the text that is certainly settled ends."""
        pem = text.rfind(_PEM_START)
        end = _PEM_END.search(text, pem) if pem != -1 else None
        if pem != -1 and end is None:
            cut = pem  # a key block begun: hold it until its END line is complete
        else:
            spaces = [text.rfind(c) for c in (" ", "\n", "\t")]
            cut = max(spaces) + 1 if max(spaces) >= 0 else 0
            opening = _OPENING.search(text[:cut])
            if opening is not None:
                cut = opening.start()
            if end is not None:
                cut = max(cut, end.end())  # never cut a finished block inside its END line
        return max(cut, len(text) - self._max_hold)
