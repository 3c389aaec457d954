"""Guardrails as declared in plain data and in the server's file: every problem named
with where it is."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.guardrails.declarations import GuardrailsFileError, load_file, parse
from records.guardrails import Action, CheckSpec, Point, Scope

DECLARED = [
    {
        "name": "no-cards",
        "kind": "pii",
        "points": ["output", "tool_result"],
        "action": "redact",
        "entities": ["card"],
    },
    {"name": "words", "kind": "deny", "points": ["input"], "action": "block", "phrases": ["x"]},
    {"name": "shape", "kind": "output_schema", "points": ["output"], "action": "block"},
    {"name": "short", "kind": "length", "points": ["input"], "action": "record", "fail": "open"},
]


def test_declarations_become_specs() -> None:
    declared = [*DECLARED[:3], {**DECLARED[3], "max_chars": 10}]
    specs, problems = parse(declared)
    assert problems == []
    assert specs[0] == CheckSpec(
        "no-cards",
        "pii",
        frozenset({Point.OUTPUT, Point.TOOL_RESULT}),
        Action.REDACT,
        Scope.WINDOW,
        {"entities": ["card"]},
    )
    assert specs[2].scope is Scope.FINAL  # the output schema is the final answer's
    assert specs[3].options == {"max_chars": 10, "fail_closed": False}


def test_nothing_declared_is_no_checks() -> None:
    assert parse(None) == ([], [])


def test_every_problem_is_named_with_where_it_is() -> None:
    declared = [
        {"name": "a", "kind": "pii", "points": ["outputs", "input"], "action": "stop"},
        {"name": "Bad Name", "kind": "pii", "points": [], "action": "block", "scope": "always"},
        "not a mapping",
        {"name": "d", "kind": "deny", "points": ["input"], "action": "block", "patterns": ["("]},
        {"name": "e", "kind": "nope", "points": ["input"], "action": "block"},
        {"name": "f", "kind": "pii", "points": ["input"], "action": "block", "fail": "maybe"},
        {"name": "g", "kind": "pii", "points": ["input"], "action": "block", "colour": "red"},
    ]
    specs, problems = parse(declared)
    assert specs == []
    fields = [field for field, _ in problems]
    assert fields == [
        "guardrails[0].points[0]",
        "guardrails[0].action",
        "guardrails[1].name",
        "guardrails[1].points",
        "guardrails[1].scope",
        "guardrails[2]",
        "guardrails[3].patterns[0]",
        "guardrails[4].kind",
        "guardrails[5].fail",
        "guardrails[6].colour",
    ]
    said = dict(problems)
    assert said["guardrails[0].points[0]"] == (
        "unknown point 'outputs'; one of input, output, tool_arguments, tool_result"
    )
    assert said["guardrails[0].action"] == "'stop' is not one of block, redact, record"
    assert said["guardrails[5].fail"] == "'maybe' is not one of open, closed"
    assert "not a valid RE2 pattern" in said["guardrails[3].patterns[0]"]
    assert "unknown kind 'nope'" in said["guardrails[4].kind"]


def test_names_are_unique() -> None:
    again = {**DECLARED[1], "points": ["output"]}
    specs, problems = parse([DECLARED[1], again])
    assert [s.name for s in specs] == ["words"]
    assert problems == [("guardrails[1].name", "'words' is also guardrails[0]")]


def test_a_list_is_needed() -> None:
    assert parse({"name": "x"}, "agent.guardrails") == (
        [],
        [("agent.guardrails", "must be a list of at most 64 checks")],
    )


def test_the_servers_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "guardrails.yaml"
    path.write_text(
        "guardrails:\n"
        "  - {name: cards, kind: pii, points: [output], action: redact, entities: [card]}\n"
        "  - name: words\n"
        "    kind: deny\n"
        "    points: [input, tool_arguments]\n"
        "    action: block\n"
        "    patterns: {project: 'project\\s+x\\d+'}\n"
    )
    specs = load_file(path)
    assert [(s.name, s.kind) for s in specs] == [("cards", "pii"), ("words", "deny")]
    assert specs[1].options == {"patterns": {"project": r"project\s+x\d+"}}


@pytest.mark.parametrize(
    ("text", "field", "words"),
    [
        ("guardrails: [\n", "(file)", "is not YAML"),
        ("- name: x\n", "(file)", "one key, guardrails"),
        ("guardrails: []\nother: 1\n", "(file)", "one key, guardrails"),
        (
            "guardrails:\n  - name: a\n    name: b\n    kind: pii\n    points: [input]\n"
            "    action: block\n",
            "guardrails[0].name",
            "written 2 times",
        ),
        (
            "guardrails:\n  - {name: a, kind: pii, points: [inputs], action: block}\n",
            "guardrails[0].points[0]",
            "unknown point 'inputs'",
        ),
    ],
)
def test_a_file_that_cannot_be_used_says_why(
    tmp_path: Path, text: str, field: str, words: str
) -> None:
    path = tmp_path / "guardrails.yaml"
    path.write_text(text)
    with pytest.raises(GuardrailsFileError) as raised:
        load_file(path)
    assert raised.value.problems[0][0] == field
    assert words in raised.value.problems[0][1]


def test_a_missing_file_says_so(tmp_path: Path) -> None:
    with pytest.raises(GuardrailsFileError, match="cannot be read"):
        load_file(tmp_path / "none.yaml")
