"""Secrets never reach logs, events or audit records: redaction by key and by shape."""

from __future__ import annotations

import io
import json
import logging
import re
from collections.abc import Iterator

import pytest
import structlog

from auth.keys import new_key
from core import secrets
from core.secrets import REDACTED, redact, scrub
from server import logs

API_KEY = new_key("acme", "alice", ())[1]
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhbGljZSIsInRlbmFudCI6ImFjbWUifQ."
    "c2lnbmF0dXJlLW9mLXRoZS10b2tlbg"
)


@pytest.fixture(autouse=True)
def _default_patterns() -> Iterator[None]:
    yield
    secrets.configure([])


@pytest.mark.parametrize(
    "text",
    [
        API_KEY,
        f"authorization: Bearer {API_KEY}",
        f"Bearer {JWT}",
        JWT,
        "key sk-proj-abcdefghijklmnopqrstuvwxyz012345",
    ],
)
def test_credentials_are_scrubbed_from_text(text: str) -> None:
    cleaned = scrub(f"before {text} after")
    assert cleaned.startswith("before ")
    assert cleaned.endswith(" after")
    assert REDACTED in cleaned
    for secret in (API_KEY, JWT, "abcdefghijklmnopqrstuvwxyz012345"):
        assert secret not in cleaned


def test_values_are_redacted_by_key_and_by_shape_at_any_depth() -> None:
    data = {
        "url": "https://example.com/",
        "headers": {"Authorization": "Basic dXNlcjpwYXNz", "X-Trace": "abc"},
        "nested": [{"password": "hunter2"}, f"see {API_KEY}"],
        "count": 3,
    }
    assert redact(data) == {
        "url": "https://example.com/",
        "headers": {"Authorization": REDACTED, "X-Trace": "abc"},
        "nested": [{"password": REDACTED}, f"see {REDACTED}"],
        "count": 3,
    }


def test_configured_patterns_are_added() -> None:
    assert scrub("ghp_" + "a" * 36) == "ghp_" + "a" * 36
    secrets.configure([r"ghp_[A-Za-z0-9]{36}"])
    assert scrub("token ghp_" + "a" * 36) == f"token {REDACTED}"
    with pytest.raises(re.error):  # a bad pattern fails at start-up
        secrets.configure(["("])


def test_log_lines_carry_no_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    sink = io.StringIO()
    monkeypatch.setattr("sys.stderr", sink)
    logs.configure("info", "json")
    try:
        log = structlog.get_logger("test")
        log.info("credential refused", header=f"Bearer {API_KEY}", api_key=API_KEY, tool="x")
        try:
            raise ValueError(f"bad token {JWT}")
        except ValueError:
            log.exception("crashed")
    finally:
        structlog.reset_defaults()
        logging.getLogger().handlers.clear()
    output = sink.getvalue()
    lines = [json.loads(line) for line in output.splitlines()]
    assert lines[0]["api_key"] == REDACTED
    assert lines[0]["tool"] == "x"
    assert API_KEY not in output
    assert JWT not in output
    assert "bad token" in output  # the rest of the message stays


@pytest.mark.parametrize(
    ("key", "secret"),
    [
        ("password", True),
        ("X-Api-Key", True),
        ("access_token", True),
        ("Set-Cookie", True),
        ("client_secret", True),
        ("Authorization", True),
        ("tokens", False),
        ("total_tokens", False),
        ("tokenizer", False),
        ("secretary", False),
        ("path", False),
    ],
)
def test_secret_keys_are_whole_words(key: str, secret: bool) -> None:
    assert secrets.secret_key(key) is secret
