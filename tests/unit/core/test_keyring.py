"""The key ring: sealing round-trips; a value opens only for its purpose and its row; an
altered or malformed value, or one sealed with a key the ring no longer holds, does not
open; after a rotation old values still open and `reseal` moves them to the current key;
without keys nothing is sealed (KEY_REQUIRED); AGENTD_KEYS is parsed without ever
echoing a key."""

from __future__ import annotations

import base64

import pytest
from pydantic import ValidationError

from core.errors import KeyRequiredError
from core.keyring import (
    KEY_BYTES,
    PREFIX,
    KeyRing,
    SealedValueError,
    bind,
    is_sealed,
    key_id,
    new_key,
    parse_key,
)
from server.settings import Settings

OLD, NEW = bytes(range(32)), bytes(range(100, 132))
PURPOSE = "push-credentials"
ROW = bind("acme", "task_1", "hook", "token")


def test_a_sealed_value_opens_to_what_was_sealed() -> None:
    ring = KeyRing([OLD])
    sealed = ring.seal(PURPOSE, b"hook-secret", ROW)
    assert is_sealed(sealed)
    assert sealed.startswith(f"{PREFIX}{key_id(OLD)}:")
    assert b"hook-secret" not in sealed.encode()
    assert ring.open(PURPOSE, sealed, ROW) == b"hook-secret"
    assert ring.seal(PURPOSE, b"hook-secret", ROW) != sealed  # a fresh nonce each time
    assert ring.open(PURPOSE, ring.seal(PURPOSE, b""), b"") == b""


def test_a_value_opens_only_for_its_purpose_and_its_row() -> None:
    ring = KeyRing([OLD])
    sealed = ring.seal(PURPOSE, b"hook-secret", ROW)
    with pytest.raises(SealedValueError, match="another use or row"):
        ring.open("webhook-secret", sealed, ROW)
    with pytest.raises(SealedValueError, match="another use or row"):
        ring.open(PURPOSE, sealed, bind("acme", "task_1", "other", "token"))
    with pytest.raises(SealedValueError, match="another use or row"):
        ring.open(PURPOSE, sealed)
    assert ring.derive(PURPOSE) != ring.derive("webhook-secret")
    assert ring.derive(PURPOSE) not in (OLD, NEW)


def test_bind_keeps_different_rows_apart() -> None:
    assert bind("a:b", "c") != bind("a", "b:c")
    assert bind("ab", "") != bind("a", "b")
    assert bind("a") != bind("a", "")


def test_an_altered_or_malformed_value_does_not_open() -> None:
    ring = KeyRing([OLD])
    sealed = ring.seal(PURPOSE, b"hook-secret", ROW)
    head, _, body = sealed.rpartition(":")
    raw = bytearray(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    raw[-1] ^= 1
    altered = f"{head}:{base64.urlsafe_b64encode(bytes(raw)).decode().rstrip('=')}"
    with pytest.raises(SealedValueError, match="altered"):
        ring.open(PURPOSE, altered, ROW)
    kid = key_id(OLD)
    for malformed in (f"{PREFIX}{kid}:", f"{PREFIX}{kid}:!!!!", f"{PREFIX}{kid}:AAAA"):
        with pytest.raises(SealedValueError, match="malformed"):
            ring.open(PURPOSE, malformed, ROW)
    with pytest.raises(SealedValueError, match="not sealed"):
        ring.open(PURPOSE, "hook-secret", ROW)


def test_after_a_rotation_old_values_open_and_reseal_moves_them() -> None:
    before = KeyRing([OLD])
    old_sealed = before.seal(PURPOSE, b"hook-secret", ROW)
    after = KeyRing([NEW, OLD])
    assert after.current_id == key_id(NEW)
    assert after.ids() == (key_id(NEW), key_id(OLD))
    assert after.open(PURPOSE, old_sealed, ROW) == b"hook-secret"
    moved = after.reseal(PURPOSE, old_sealed, ROW)
    assert after.sealed_with(old_sealed) == key_id(OLD)
    assert after.sealed_with(moved) == key_id(NEW)
    assert after.reseal(PURPOSE, moved, ROW) == moved  # already current: as it is
    assert KeyRing([NEW]).open(PURPOSE, moved, ROW) == b"hook-secret"  # the old key dropped
    with pytest.raises(SealedValueError, match=f"key '{key_id(OLD)}'.*no longer holds"):
        KeyRing([NEW]).open(PURPOSE, old_sealed, ROW)
    with pytest.raises(SealedValueError, match="no longer holds"):
        KeyRing([NEW]).reseal(PURPOSE, old_sealed, ROW)


def test_reseal_seals_a_value_kept_in_plain_text() -> None:
    ring = KeyRing([NEW])
    sealed = ring.reseal(PURPOSE, "hook-secret", ROW)
    assert ring.sealed_with(sealed) == key_id(NEW)
    assert ring.open(PURPOSE, sealed, ROW) == b"hook-secret"
    assert ring.sealed_with("hook-secret") == ""


def test_without_keys_nothing_is_sealed_or_opened() -> None:
    empty = KeyRing()
    assert not empty.present
    assert empty.current_id == ""
    sealed = KeyRing([OLD]).seal(PURPOSE, b"hook-secret", ROW)
    with pytest.raises(KeyRequiredError, match="a push notification's token is kept encrypted"):
        empty.seal(PURPOSE, b"hook-secret", ROW, what="a push notification's token")
    with pytest.raises(KeyRequiredError, match="AGENTD_KEYS") as raised:
        empty.open(PURPOSE, sealed, ROW)
    assert raised.value.reason == "KEY_REQUIRED"
    assert raised.value.metadata == {"setting": "AGENTD_KEYS"}
    with pytest.raises(KeyRequiredError):
        empty.reseal(PURPOSE, "hook-secret", ROW)  # never "resealed" into plain text
    with pytest.raises(KeyRequiredError):
        empty.derive(PURPOSE)
    with pytest.raises(SealedValueError, match="no key 'ffffffff'"):
        KeyRing([OLD]).derive(PURPOSE, "ffffffff")


def test_keys_are_parsed_from_their_base64() -> None:
    made = new_key()
    assert len(parse_key(made)) == KEY_BYTES
    assert made != new_key()
    urlsafe = base64.urlsafe_b64encode(NEW).decode().rstrip("=")
    assert parse_key(f"  {urlsafe}\n") == NEW  # URL-safe, unpadded, blanks around it
    ring = KeyRing.parse([base64.b64encode(NEW).decode(), " ", base64.b64encode(OLD).decode()])
    assert ring.ids() == (key_id(NEW), key_id(OLD))
    with pytest.raises(ValueError, match="the same key twice"):
        KeyRing([OLD, OLD])
    with pytest.raises(ValueError, match="16 bytes, not 32"):
        KeyRing([OLD[:16]])


SECRETISH = "c2VjcmV0LXNlY3JldC1zZWNyZXQ"  # base64 of 20 bytes: not a key
NOT_BASE64 = "this-is-not-base64-but-secret!"


@pytest.mark.parametrize(
    ("text", "problem"),
    [(SECRETISH, "is 20 bytes, not 32"), (NOT_BASE64, "is not base64")],
)
def test_a_bad_key_is_named_never_echoed(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem) as parsed:
        parse_key(text)
    assert text not in str(parsed.value)
    good = base64.b64encode(NEW).decode()
    with pytest.raises(ValidationError) as invalid:
        Settings(keys=f"{good},{text}")
    # What is ever shown of it: the error as text, and each problem's message (the CLI's).
    shown = f"{invalid.value}{invalid.value.errors(include_input=False)}"
    assert problem in shown
    assert text not in shown
    assert good not in shown


def test_the_setting_gives_the_ring() -> None:
    assert not Settings().key_ring().present
    keys = f"{base64.b64encode(NEW).decode()}, {base64.b64encode(OLD).decode()}"
    settings = Settings(keys=keys)
    assert settings.key_ring().ids() == (key_id(NEW), key_id(OLD))
    assert keys not in repr(settings)
    assert base64.b64encode(NEW).decode() not in str(settings.model_dump())
