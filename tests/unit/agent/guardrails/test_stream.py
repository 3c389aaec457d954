"""Streamed output under guard: held back per window, checked whole across windows, and
nothing that a check blocks ever released."""

from __future__ import annotations

import random

import pytest

from agent.guardrails.base import Blocked
from agent.guardrails.guard import Guard
from agent.guardrails.stream import GuardedStream
from records.guardrails import Action, Finding, Point, Scope
from tests.unit.agent.guardrails.checks import SUBJECT, Scripted, spec

CARD = "4111 1111 1111 1111"
PHRASE = "launch codes"
FILLER = "The quick brown fox jumps over the lazy dog; ever onward. "


async def streamed(stream: GuardedStream, pieces: list[str]) -> tuple[str, Blocked | None]:
    """Everything released, and the Blocked that stopped it (if any)."""
    out: list[str] = []
    try:
        for piece in pieces:
            out.append(await stream.feed(piece))
        out.append(await stream.finish())
    except Blocked as blocked:
        return "".join(out), blocked
    return "".join(out), None


def split(text: str, rng: random.Random) -> list[str]:
    """`text` in pieces of random sizes (1 to 12 characters, now and then empty)."""
    pieces, at = [], 0
    while at < len(text):
        size = rng.choice([0, 1, 1, 2, 3, 5, 8, 12])
        pieces.append(text[at : at + size])
        at += size
    return pieces


def guard(action: Action) -> Guard:
    return Guard.build(
        [
            spec("pii", action, name="pii", entities=["card", "email"]),
            spec("deny", action, name="deny", phrases=[PHRASE]),
        ]
    )


def digits(text: str) -> str:
    return "".join(c for c in text if c.isdigit())


WINDOWS = [1, 2, 7, 16, 64, 100_000]


@pytest.mark.parametrize("window", WINDOWS)
@pytest.mark.parametrize("secret", [CARD, PHRASE, "LAUNCH Codes"])
async def test_nothing_that_is_blocked_is_ever_released(window: int, secret: str) -> None:
    rng = random.Random(f"{window}-{secret}")
    for _ in range(40):
        before = FILLER * rng.randrange(0, 6) + FILLER[: rng.randrange(len(FILLER))]
        text = before + " " + secret + ". " + FILLER * rng.randrange(0, 3)
        stream = GuardedStream(guard(Action.BLOCK), SUBJECT, window_chars=window, tail_chars=32)
        released, blocked = await streamed(stream, split(text, rng))
        assert blocked is not None
        assert secret.lower() not in released.lower()
        assert digits(secret) == "" or digits(secret) not in digits(released)
        assert text.startswith(released)
        assert stream.verdicts[-1].action is Action.BLOCK
        with pytest.raises(Blocked):
            await stream.feed("more")


@pytest.mark.parametrize("window", WINDOWS)
async def test_redacted_text_is_released_with_placeholders_only(window: int) -> None:
    rng = random.Random(window)
    for _ in range(40):
        parts = [FILLER[: rng.randrange(len(FILLER))] for _ in range(4)]
        text = f"{parts[0]} {CARD} {parts[1]} ann@example.com {parts[2]}{PHRASE}{parts[3]}"
        stream = GuardedStream(guard(Action.REDACT), SUBJECT, window_chars=window, tail_chars=32)
        released, blocked = await streamed(stream, split(text, rng))
        assert blocked is None
        assert released == f"{parts[0]} [CARD] {parts[1]} [EMAIL] {parts[2]}[DENY]{parts[3]}"
        rules = sorted(f.rule for v in stream.verdicts for f in v.findings)
        assert rules == ["card", "deny:phrases-1", "email"]  # each reported once


@pytest.mark.parametrize("window", WINDOWS)
async def test_recorded_text_is_released_unchanged_and_each_finding_reported_once(
    window: int,
) -> None:
    rng = random.Random(window)
    for _ in range(20):
        text = FILLER * 2 + CARD + " " + FILLER + PHRASE + FILLER * 3
        stream = GuardedStream(guard(Action.RECORD), SUBJECT, window_chars=window, tail_chars=32)
        released, blocked = await streamed(stream, split(text, rng))
        assert (released, blocked) == (text, None)
        rules = sorted(f.rule for v in stream.verdicts for f in v.findings)
        assert rules == ["card", "deny:phrases-1"]
        assert all(v.action is Action.RECORD for v in stream.verdicts)


async def test_text_is_held_until_its_window_is_checked() -> None:
    stream = GuardedStream(guard(Action.BLOCK), SUBJECT, window_chars=10, tail_chars=5)
    assert await stream.feed("0123456789") == ""  # 10 held: a window and a tail are 15
    assert await stream.feed("abcde") == "0123456789"
    assert await stream.feed("f") == ""
    assert await stream.finish() == "abcdef"
    assert await stream.finish() == ""


async def test_a_guard_without_output_checks_holds_nothing_back() -> None:
    stream = GuardedStream(
        Guard.build([spec("pii", points=frozenset({Point.INPUT}))]), SUBJECT, window_chars=50
    )
    assert await stream.feed(CARD) == CARD
    assert await stream.finish() == ""


async def test_a_redacted_span_at_the_end_of_a_window_is_held_whole() -> None:
    stream = GuardedStream(guard(Action.REDACT), SUBJECT, window_chars=4, tail_chars=4)
    released = await stream.feed("ab ann@example.com")  # the e-mail crosses where 4 are kept
    assert released == "ab "
    assert await stream.feed(" then") == "[EMAIL] "
    assert await stream.finish() == "then"


async def test_final_scope_checks_are_left_to_the_final_answer() -> None:
    judge = Scripted(spec("judge", Action.BLOCK, scope=Scope.FINAL), [Finding("judge", "x", "y")])
    window = Scripted(spec("window", Action.RECORD), [])
    stream = GuardedStream(Guard([judge, window]), SUBJECT, window_chars=3, tail_chars=0)
    assert await stream.feed("abcdef") == "abcdef"
    assert await stream.finish() == ""
    assert judge.calls == []
    assert window.calls == ["abcdef"]


async def test_a_model_check_that_redacts_without_spans_releases_its_placeholder() -> None:
    judge = Scripted(spec("judge", Action.REDACT), [Finding("judge", "moderation:hate", "y")])
    stream = GuardedStream(Guard([judge]), SUBJECT, window_chars=4, tail_chars=2)
    assert await stream.feed("abcdef") == "[REDACTED]"
    assert await stream.finish() == ""
    assert [v.text for v in stream.verdicts] == ["[REDACTED]"]


async def test_a_check_that_cannot_decide_blocks_the_window_when_it_fails_closed() -> None:
    judge = Scripted(spec("judge", Action.RECORD))
    judge.down = "no answer"
    stream = GuardedStream(Guard([judge]), SUBJECT, window_chars=4, tail_chars=0)
    with pytest.raises(Blocked) as raised:
        await stream.feed("secret")
    assert raised.value.verdict.findings[0].rule == "unavailable"
    assert raised.value.verdict.text == ""
