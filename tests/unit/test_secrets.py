"""Secrets never reach logs, events or audit records: redaction by key and by shape."""

from __future__ import annotations

import io
import json
import logging
import re
import time
from collections.abc import Iterator

import pytest
import structlog

from core import secrets
from core.secrets import REDACTED, redact, scrub
from records.keys import new_key
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
    assert scrub("acme-internal-12345678") == "acme-internal-12345678"
    secrets.configure([r"acme-internal-[0-9]{8}"])
    assert scrub("id acme-internal-12345678") == f"id {REDACTED}"
    with pytest.raises(re.error):  # a bad pattern fails at start-up
        secrets.configure(["("])


AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"  # AWS's example: 40 characters
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAx1secretbody\nabcDEF==\n"
    "-----END RSA PRIVATE KEY-----"
)
# (text as it appears, the part that must never survive, what must survive)
FORMATS = [
    ("agentd key", API_KEY, API_KEY.split("_", 2)[2], ""),
    ("bearer", "Authorization: Bearer abcdefgh12345678", "abcdefgh12345678", "Authorization"),
    ("jwt", JWT, "eyJzdWIiOiJhbGljZSIsInRlbmFudCI6ImFjbWUifQ", ""),
    ("openai", "sk-proj-abcdefghijklmnopqrstuvwxyz012345", "abcdefghijklmnop", ""),
    ("github classic", "ghp_" + "A1b2C3d4" * 5, "A1b2C3d4A1b2C3d4", ""),
    ("github fine-grained", "github_pat_11ABCDEFG0123456789_abcdefghijkl", "11ABCDEFG0123", ""),
    ("aws key id", "AKIAIOSFODNN7EXAMPLE", "IOSFODNN7EXAMPLE", ""),
    ("slack", "xoxb-123456789012-abcdefghij", "123456789012-abcdefghij", ""),
    ("google", "AIza" + "Sy0123456789abcdefghijklmnopqrstuvw", "Sy0123456789abcdef", ""),
    ("pem block", PEM, "MIIEpAIBAAKCAQEAx1secretbody", ""),
    ("url user info", "https://bob:s3cretpass@db.example.com/x", "s3cretpass", "db.example.com/x"),
    ("query", "https://e.example/x?access_token=abcdef123456&page=2", "abcdef123456", "page=2"),
    (
        "query signature",
        "https://e.example/x?X-Amz-Signature=f00dbeefcafe",
        "f00dbeefcafe",
        "e.example",
    ),
    ("password in text", "password=hunter2hunter", "hunter2hunter", "password="),
    ("secret in text", "client secret: Zx9!mellon", "Zx9!mellon", "client secret: "),
    ("camelCase in text", "clientSecret: Zx9!mellon", "Zx9!mellon", "clientSecret: "),
    ("json pair", '{"db_password": "Zx9!mellon"}', "Zx9!mellon", '"db_password": "'),
    ("env line", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG", "wJalrXUtnFEMI", "AWS_SECRET"),
    ("aws short name", f"aws={AWS_SECRET}", AWS_SECRET[:20], "aws="),
    ("aws ini line", f"aws_secret_access_key = {AWS_SECRET}", AWS_SECRET[:20], "access_key = "),
    ("aws env line", f"AWS_SECRET_ACCESS_KEY={AWS_SECRET}", AWS_SECRET[:20], "AWS_SECRET"),
    ("aws json pair", f'{{"aws": "{AWS_SECRET}"}}', AWS_SECRET[:20], '"aws": "'),
    ("aws escaped json", f'"{{\\"aws\\": \\"{AWS_SECRET}\\"}}"', AWS_SECRET[:20], '\\"aws\\": '),
    ("aws in words", f"my AWS key: {AWS_SECRET}", AWS_SECRET[:20], "my AWS key: "),
    ("aws prefixed name", f"prod.aws_key:{AWS_SECRET}", AWS_SECRET[:20], "prod.aws_key:"),
]


@pytest.mark.parametrize(("name", "text", "secret", "kept"), FORMATS, ids=[f[0] for f in FORMATS])
def test_every_promised_format_is_scrubbed(name: str, text: str, secret: str, kept: str) -> None:
    cleaned = scrub(f"before {text} after")
    assert secret not in cleaned
    assert REDACTED in cleaned
    assert kept in cleaned
    assert cleaned.startswith("before ")
    assert cleaned.endswith(" after")


@pytest.mark.parametrize(("name", "text", "secret", "kept"), FORMATS, ids=[f[0] for f in FORMATS])
def test_a_secret_split_anywhere_across_pieces_is_caught(
    name: str, text: str, secret: str, kept: str
) -> None:
    whole = f"here it is: {text} and more words"
    for cut in range(1, len(whole)):  # every place one split can fall
        redactor = secrets.StreamRedactor()
        out = redactor.feed(whole[:cut]) + redactor.feed(whole[cut:]) + redactor.flush()
        assert out == scrub(whole), cut
    for size in (1, 2, 3, 5):  # and pieces of every small size
        redactor = secrets.StreamRedactor()
        pieces = [redactor.feed(whole[i : i + size]) for i in range(0, len(whole), size)]
        out = "".join(pieces) + redactor.flush()
        assert secret not in out
        assert out == scrub(whole)


def test_a_stream_holds_back_little_and_never_more_than_its_limit() -> None:
    redactor = secrets.StreamRedactor(max_hold=64)
    assert redactor.feed("The answer is ") == "The answer is "
    assert redactor.feed("forty") == ""  # the word may still grow into a key
    assert redactor.feed("-two. Next") == "forty-two. "
    assert len(redactor.feed("x" * 500)) >= 500 + len("Next") - 64
    assert redactor.flush() != ""


def test_ordinary_prose_is_left_alone() -> None:
    prose = (
        "The token count was 500, max_tokens: 4096, the secretary: Jane Doe, and the "
        "password policy needs 12 characters; "
        "see https://example.com/docs?page=2&sort=asc for the key points."
    )
    assert scrub(prose) == prose


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
        ("clientSecret", True),
        ("accessToken", True),
        ("awsSecretAccessKey", True),
        ("x-amz-security-token", True),
        ("privateKey", True),
        ("tokens", False),
        ("total_tokens", False),
        ("tokenizer", False),
        ("secretary", False),
        ("path", False),
        ("maxTokens", False),
        ("author", False),
    ],
)
def test_secret_keys_are_whole_words(key: str, secret: bool) -> None:
    assert secrets.secret_key(key) is secret


def test_an_unexpected_error_is_logged_without_local_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sink = io.StringIO()
    monkeypatch.setattr("sys.stderr", sink)
    logs.configure("info", "json")

    def connect() -> None:
        password = "plain-local-value-1"  # noqa: F841 - a local the traceback must not show
        headers = {"X-Custom": "plain-local-value-2"}  # noqa: F841
        dsn = "postgresql://app:plain-local-value-3@db/agentd"  # noqa: F841
        raise RuntimeError("connection refused")

    try:
        try:
            connect()
        except RuntimeError:
            structlog.get_logger("test").exception("unexpected error")
    finally:
        structlog.reset_defaults()
        logging.getLogger().handlers.clear()
    output = sink.getvalue()
    assert "connection refused" in output
    assert "connect" in output  # the frames are still there
    assert "plain-local-value" not in output


def test_aws_secrets_only_next_to_an_aws_name_and_of_their_length() -> None:
    assert scrub(f"hash={AWS_SECRET}") == f"hash={AWS_SECRET}"
    assert scrub(f"laws: {AWS_SECRET}") == f"laws: {AWS_SECRET}"
    assert scrub(f"aws={AWS_SECRET}x") == f"aws={AWS_SECRET}x"  # 41 characters: not one
    assert scrub("aws region: eu-west-1") == "aws region: eu-west-1"


def test_no_aws_lookalike_makes_scrubbing_slow() -> None:
    started = time.perf_counter()
    for text in ("aws" + "a" * 100_000, "aws_" * 30_000, "x.aws " * 20_000 + "=", "a-" * 5_000):
        scrub(text)
    assert time.perf_counter() - started < 5.0  # about 1 s; "a-" * 5_000 alone took 20 s


def _full(text: str) -> str:
    """What the patterns alone make of `text` (no check for marks first)."""
    return secrets._patterns.sub(secrets._replace, text)


@pytest.mark.parametrize(("name", "text", "secret", "kept"), FORMATS, ids=[f[0] for f in FORMATS])
def test_every_promised_format_carries_a_mark_the_quick_check_finds(
    name: str, text: str, secret: str, kept: str
) -> None:
    framed = f"before {text} after"
    assert secrets._triggers.search(framed) is not None
    assert scrub(framed) == _full(framed)


def test_text_without_any_mark_is_returned_as_it_is_and_matches_the_full_scrub() -> None:
    prose = (
        "The executor of step s3 read data/report.csv (14 rows), summed them to 7006652 "
        "and wrote the answer. Keys: name=value; a=b & c=d; user@host, A-Z 0-9 ü 日本."
    )
    assert secrets._triggers.search(prose) is None
    assert scrub(prose) is prose
    assert _full(prose) == prose


def test_an_operators_pattern_turns_the_quick_check_off() -> None:
    secrets.configure([r"acme-internal-[0-9]{8}"])
    assert secrets._triggers is None
    assert scrub("plain acme-internal-12345678") == f"plain {REDACTED}"
    secrets.configure([])
    assert secrets._triggers is not None


def test_a_repeated_long_text_is_scrubbed_as_scrub_does_also_after_new_patterns() -> None:
    long = "Instructions for the support agent. " * 20 + f"key {API_KEY} end"
    assert secrets.scrub_repeated(long) == scrub(long)
    assert API_KEY not in secrets.scrub_repeated(long)
    secrets.configure([r"support agent"])  # what was kept is forgotten
    assert "support agent" not in secrets.scrub_repeated(long)


@pytest.mark.parametrize(
    "text",
    [
        "APİ_KEY=abcdefgh1234",  # a Turkish locale's upper case of api_key
        "apı_key=abcdefgh1234",
        "https://e.example/x?sıg=abcdef123456",
        "https://e.example/x?x-amz-sıgnature=abcdef123456",
        "paſſword=hunter2hunter",
        "bad \ud800 sk-proj-abcdefghijklmnopqrstuvwxyz012345",  # a lone surrogate: no RE2
        "bad \ud800 and nothing else",
    ],
)
def test_letters_case_folding_treats_alike_and_text_re2_cannot_take_are_scrubbed_in_full(
    text: str,
) -> None:
    assert scrub(text) == _full(text)
