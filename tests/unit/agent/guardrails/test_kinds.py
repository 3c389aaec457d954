"""The built-in kinds of check, and making checks by kind."""

from __future__ import annotations

from typing import Any

import pytest

from agent.guardrails.base import KINDS, make_check, register_kind
from agent.guardrails.options import OptionError
from records.guardrails import Action, Finding, Point, Scope, Span
from tests.unit.agent.guardrails.checks import SUBJECT, Scripted, spec


async def test_pii_finds_each_entity_as_a_rule_of_its_own() -> None:
    check = make_check(spec("pii"))
    text = "Mail ann@example.com or bob@example.org, card 4111 1111 1111 1111."
    findings = await check.inspect(text, SUBJECT)
    assert [(f.rule, len(f.spans)) for f in findings] == [("email", 2), ("card", 1)]
    assert findings[1].spans == (Span(46, 65, "CARD"),)
    assert not check.needs_model


async def test_pii_looks_for_the_entities_it_names_only() -> None:
    check = make_check(spec("pii", entities=["card"]))
    assert [f.rule for f in await check.inspect("ann@example.com 4111111111111111", SUBJECT)] == [
        "card"
    ]


async def test_pii_reads_national_phone_numbers_in_its_region() -> None:
    assert (
        await make_check(spec("pii", entities=["phone"])).inspect("(415) 555-2671", SUBJECT) == []
    )
    found = await make_check(spec("pii", entities=["phone"], region="us")).inspect(
        "(415) 555-2671", SUBJECT
    )
    assert [f.rule for f in found] == ["phone"]


@pytest.mark.parametrize(
    ("options", "option"),
    [
        ({"entities": ["email", "passport"]}, "entities"),
        ({"entities": []}, "entities"),
        ({"region": "USA"}, "region"),
        ({"colour": "red"}, "colour"),
        ({"placeholder": 3}, "placeholder"),
        ({"fail_closed": "yes"}, "fail_closed"),
        ({"fields": "url"}, "fields"),
    ],
)
def test_bad_pii_options_are_named(options: dict[str, Any], option: str) -> None:
    with pytest.raises(OptionError) as raised:
        make_check(spec("pii", **options))
    assert raised.value.option == option


async def test_deny_patterns_and_phrases_are_rules_with_ids() -> None:
    check = make_check(
        spec("deny", patterns={"project": r"(?i)project\s+x\d+"}, phrases=["Top Secret", "zebra"])
    )
    text = "the TOP SECRET plan for Project  X42, top secret"
    findings = await check.inspect(text, SUBJECT)
    assert [(f.rule, [text[s.start : s.end] for s in f.spans]) for f in findings] == [
        ("deny:project", ["Project  X42"]),
        ("deny:phrases-1", ["TOP SECRET", "top secret"]),
    ]
    assert await check.inspect("nothing here", SUBJECT) == []


async def test_deny_phrases_are_literal() -> None:
    check = make_check(spec("deny", phrases=["a.b (c)"]))
    assert await check.inspect("axb c", SUBJECT) == []
    assert len(await check.inspect("see A.B (C) here", SUBJECT)) == 1


@pytest.mark.parametrize(
    ("options", "option", "words"),
    [
        ({"patterns": ["ok", "(?<=a)b"]}, "patterns[1]", "not a valid RE2 pattern"),
        ({"patterns": {"bad": "(unclosed"}}, "patterns.bad", "not a valid RE2 pattern"),
        ({"patterns": ["x*"]}, "patterns[0]", "matches the empty text"),
        ({"phrases": [""]}, "phrases[0]", "1 to 1000"),
        ({"patterns": "word"}, "patterns", "must be a list"),
        ({}, "patterns", "needs patterns or phrases"),
    ],
)
def test_bad_deny_rules_are_named(options: dict[str, Any], option: str, words: str) -> None:
    with pytest.raises(OptionError) as raised:
        make_check(spec("deny", **options))
    assert raised.value.option == option
    assert words in raised.value.problem


async def test_allow_needs_the_whole_text_to_match_a_pattern() -> None:
    check = make_check(spec("allow", patterns=[r"https://api\.example\.com/[a-z/]*"]))
    assert await check.inspect("https://api.example.com/v/items", SUBJECT) == []
    [finding] = await check.inspect("https://evil.test/?https://api.example.com/", SUBJECT)
    assert finding.rule == "allow"
    assert finding.spans == (Span(0, 43, "NOT_ALLOWED"),)


async def test_length_finds_what_is_over_the_limit() -> None:
    check = make_check(spec("length", max_chars=5))
    assert await check.inspect("12345", SUBJECT) == []
    [finding] = await check.inspect("1234567", SUBJECT)
    assert finding.spans == (Span(5, 7, "LENGTH"),)
    with pytest.raises(OptionError, match="max_chars"):
        make_check(spec("length", max_chars=0))


SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


async def test_output_schema_is_the_answers_own_check() -> None:
    check = make_check(
        spec("output_schema", points=frozenset({Point.OUTPUT}), scope=Scope.FINAL, schema=SCHEMA)
    )
    assert await check.inspect('Here it is: ```json\n{"n": 3}\n```', SUBJECT) == []
    [finding] = await check.inspect('{"n": "three"}', SUBJECT)
    assert finding.rule == "schema"


@pytest.mark.parametrize(
    ("points", "scope", "schema", "option"),
    [
        (frozenset({Point.OUTPUT}), Scope.WINDOW, SCHEMA, "points"),
        (frozenset({Point.INPUT}), Scope.FINAL, SCHEMA, "points"),
        (frozenset({Point.OUTPUT}), Scope.FINAL, None, "schema"),
        (frozenset({Point.OUTPUT}), Scope.FINAL, {"type": 5}, "schema"),
    ],
)
def test_output_schema_checks_the_final_answer_against_a_schema(
    points: frozenset[Point], scope: Scope, schema: object, option: str
) -> None:
    with pytest.raises(OptionError) as raised:
        make_check(spec("output_schema", points=points, scope=scope, schema=schema))
    assert raised.value.option == option


def test_an_unknown_kind_is_named_with_the_known_ones() -> None:
    with pytest.raises(OptionError, match=r"unknown kind 'pi'; one of .*pii") as raised:
        make_check(spec("pi"))
    assert raised.value.option == "kind"


def test_a_check_needs_a_point() -> None:
    with pytest.raises(OptionError, match="at least one point"):
        make_check(spec("pii", points=frozenset()))


async def test_registered_kinds_are_made_by_name() -> None:
    finding = Finding("judge", "moderation:hate", "said so")
    register_kind("scripted", lambda s: Scripted(s, [finding]))
    try:
        check = make_check(spec("scripted", Action.RECORD, name="judge"))
        assert check.needs_model
        assert await check.inspect("x", SUBJECT) == [finding]
        with pytest.raises(ValueError, match="registered already"):
            register_kind("scripted", lambda s: Scripted(s))
    finally:
        del KINDS["scripted"]
