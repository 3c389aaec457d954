"""A task's guard: which checks run where, how their findings combine, fail modes, and
tool call arguments."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent.guardrails.base import make_check
from agent.guardrails.guard import Guard
from records.guardrails import Action, Finding, Point, Scope, Span, Verdict
from tests.unit.agent.guardrails.checks import SUBJECT, Scripted, spec

CARD = "4111 1111 1111 1111"


async def test_a_guard_without_checks_passes_everything_unchanged() -> None:
    guard = Guard()
    assert not guard.watches(Point.OUTPUT)
    assert await guard.inspect(Point.OUTPUT, f"card {CARD}", SUBJECT) == Verdict(
        None, (), f"card {CARD}"
    )
    verdict, arguments = await guard.inspect_arguments(Point.TOOL_ARGUMENTS, {"a": CARD}, SUBJECT)
    assert verdict.action is None
    assert arguments == {"a": CARD}


async def test_checks_run_only_at_their_points() -> None:
    guard = Guard.build([spec("pii", points=frozenset({Point.INPUT}))])
    assert guard.watches(Point.INPUT)
    assert not guard.watches(Point.OUTPUT)
    assert (await guard.inspect(Point.OUTPUT, CARD, SUBJECT)).action is None
    assert (await guard.inspect(Point.INPUT, CARD, SUBJECT)).action is Action.BLOCK


async def test_redact_replaces_every_span_with_its_checks_placeholder() -> None:
    guard = Guard.build(
        [
            spec("pii", Action.REDACT),
            spec("deny", Action.REDACT, phrases=["project x"], placeholder="<{LABEL}>"),
        ]
    )
    text = f"ann@example.com paid with {CARD} for Project X."
    verdict = await guard.inspect(Point.OUTPUT, text, SUBJECT)
    assert verdict.action is Action.REDACT
    assert verdict.text == "[EMAIL] paid with [CARD] for <DENY>."
    assert [f.rule for f in verdict.findings] == ["email", "card", "deny:phrases-1"]


async def test_overlapping_spans_are_merged_into_one_placeholder() -> None:
    guard = Guard.build(
        [
            spec("deny", Action.REDACT, name="a", patterns=["abc"]),
            spec("deny", Action.REDACT, name="b", patterns=["bcd", "c"]),
            spec("deny", Action.REDACT, name="c", patterns=["xy"]),
        ]
    )
    verdict = await guard.inspect(Point.OUTPUT, "0abcde-xyxy", SUBJECT)
    assert verdict.text == "0[DENY]e-[DENY][DENY]"


async def test_the_strongest_action_wins_and_record_changes_nothing() -> None:
    record = spec("pii", Action.RECORD, name="seen", entities=["email"])
    redact = spec("pii", Action.REDACT, name="hidden", entities=["card"])
    block = spec("deny", Action.BLOCK, phrases=["forbidden"])
    guard = Guard.build([record, redact, block])
    text = f"ann@example.com {CARD}"
    redacted = await guard.inspect(Point.OUTPUT, text, SUBJECT)
    assert (redacted.action, redacted.text) == (Action.REDACT, "ann@example.com [CARD]")
    recorded = await guard.inspect(Point.OUTPUT, "ann@example.com", SUBJECT)
    assert (recorded.action, recorded.text) == (Action.RECORD, "ann@example.com")
    blocked = await guard.inspect(Point.OUTPUT, text + " forbidden", SUBJECT)
    assert (blocked.action, blocked.text) == (Action.BLOCK, text + " forbidden")
    assert [f.check for f in blocked.findings] == ["seen", "hidden", "deny"]


async def test_a_redacting_finding_without_spans_covers_the_whole_text() -> None:
    finding = Finding("judge", "moderation:hate", "hateful")
    judge = Scripted(spec("judge", Action.REDACT), [finding])
    verdict = await Guard([judge]).inspect(Point.OUTPUT, "some text", SUBJECT)
    assert verdict.text == "[REDACTED]"


async def test_length_redacted_is_cut_at_the_limit() -> None:
    guard = Guard.build([spec("length", Action.REDACT, max_chars=4, placeholder="…")])
    assert (await guard.inspect(Point.INPUT, "abcdefgh", SUBJECT)).text == "abcd…"


async def test_final_checks_run_only_on_the_final_text() -> None:
    judge = Scripted(spec("judge", Action.BLOCK, scope=Scope.FINAL), [Finding("judge", "x", "y")])
    window = Scripted(spec("window", Action.RECORD), [Finding("window", "w", "z")])
    guard = Guard([judge, window])
    assert (await guard.inspect(Point.OUTPUT, "a", SUBJECT)).action is Action.RECORD
    assert judge.calls == []
    assert (await guard.inspect(Point.OUTPUT, "b", SUBJECT, final=True)).action is Action.BLOCK
    final_only = await guard.inspect_final(Point.OUTPUT, "c", SUBJECT)
    assert [f.check for f in final_only.findings] == ["judge"]
    assert (judge.calls, window.calls) == (["b", "c"], ["a", "b"])


async def test_the_output_schema_check_gets_the_agents_schema() -> None:
    schema = {"type": "object", "required": ["n"]}
    final = spec("output_schema", points=frozenset({Point.OUTPUT}), scope=Scope.FINAL)
    guard = Guard.build([final], output_schema=schema)
    assert (await guard.inspect(Point.OUTPUT, '{"m": 1}', SUBJECT)).action is None
    assert (await guard.inspect(Point.OUTPUT, '{"m": 1}', SUBJECT, final=True)).action is (
        Action.BLOCK
    )
    assert (await guard.inspect(Point.OUTPUT, '{"n": 1}', SUBJECT, final=True)).action is None
    with pytest.raises(ValueError, match="no output_schema"):
        Guard.build([final])


@pytest.mark.parametrize(
    ("options", "default", "action", "words"),
    [
        ({}, True, Action.BLOCK, "could not check, so blocked: timed out"),
        ({}, False, Action.RECORD, "could not check, let through: timed out"),
        ({"fail_closed": False}, True, Action.RECORD, "let through"),
        ({"fail_closed": True}, False, Action.BLOCK, "so blocked"),
    ],
)
async def test_a_check_that_cannot_decide_fails_as_its_mode_says(
    options: dict[str, Any], default: bool, action: Action, words: str
) -> None:
    judge = Scripted(spec("judge", Action.REDACT, **options))
    judge.down = "timed out"
    guard = Guard([judge, make_check(spec("pii", Action.RECORD))], fail_closed=default)
    verdict = await guard.inspect(Point.OUTPUT, f"pay {CARD}", SUBJECT)
    assert verdict.action is action
    [unavailable, card] = verdict.findings
    assert (unavailable.check, unavailable.rule) == ("judge", "unavailable")
    assert words in unavailable.reason
    assert card.rule == "card"
    assert verdict.text == f"pay {CARD}"


def test_a_name_declared_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="'pii' is declared twice"):
        Guard.build([spec("pii"), spec("pii", entities=["email"])])


ARGUMENTS = {
    "url": "https://api.example.com/x",
    "body": {"to": ["ann@example.com", "bob"], "note": f"card {CARD}", "count": 3},
}


async def test_arguments_are_checked_string_by_string_and_redacted_in_place() -> None:
    guard = Guard.build([spec("pii", Action.REDACT)])
    verdict, arguments = await guard.inspect_arguments(Point.TOOL_ARGUMENTS, ARGUMENTS, SUBJECT)
    assert verdict.action is Action.REDACT
    assert arguments == {
        "url": "https://api.example.com/x",
        "body": {"to": ["[EMAIL]", "bob"], "note": "card [CARD]", "count": 3},
    }
    assert json.loads(verdict.text) == arguments
    assert [f.reason.split(":")[0] for f in verdict.findings] == [
        "arguments.body.to[0]",
        "arguments.body.note",
    ]
    assert verdict.findings[1].spans == (Span(5, 24, "CARD"),)
    assert ARGUMENTS["body"]["note"] == f"card {CARD}"  # type: ignore[index]


async def test_arguments_that_are_blocked_or_recorded_are_returned_unchanged() -> None:
    guard = Guard.build([spec("pii", Action.BLOCK)])
    verdict, arguments = await guard.inspect_arguments(Point.TOOL_ARGUMENTS, ARGUMENTS, SUBJECT)
    assert verdict.action is Action.BLOCK
    assert arguments is ARGUMENTS


async def test_a_check_with_fields_sees_those_arguments_only() -> None:
    allowed = spec("allow", fields=["url"], patterns=[r"https://api\.example\.com/.*"])
    guard = Guard.build([allowed])
    passed, _ = await guard.inspect_arguments(Point.TOOL_ARGUMENTS, ARGUMENTS, SUBJECT)
    assert passed.action is None
    elsewhere = {**ARGUMENTS, "url": "https://evil.test/"}
    blocked, _ = await guard.inspect_arguments(Point.TOOL_ARGUMENTS, elsewhere, SUBJECT)
    assert blocked.action is Action.BLOCK
    assert blocked.findings[0].reason.startswith("arguments.url: ")


async def test_a_model_based_check_sees_the_arguments_json_once() -> None:
    judge = Scripted(spec("judge", Action.REDACT, fields=["body"]), [Finding("judge", "x", "y")])
    verdict, arguments = await Guard([judge]).inspect_arguments(
        Point.TOOL_ARGUMENTS, ARGUMENTS, SUBJECT
    )
    assert len(judge.calls) == 1
    assert json.loads(judge.calls[0]) == {"body": ARGUMENTS["body"]}
    assert arguments == {
        "url": "https://api.example.com/x",
        "body": {"to": ["[REDACTED]", "[REDACTED]"], "note": "[REDACTED]", "count": 3},
    }
    assert verdict.action is Action.REDACT
