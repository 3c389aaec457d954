"""A schema error names what is wrong without echoing a whole argument: a 200 KB text
that is too long must not come back in the error (gRPC bounds the status's metadata at
16 KiB, so a Python or Go client would see RESOURCE_EXHAUSTED instead of the
INVALID_ARGUMENT the caller earned)."""

from __future__ import annotations

from tools.validation import ArgumentValidator

SCHEMA = {
    "type": "object",
    "properties": {"text": {"type": "string", "maxLength": 4000}},
    "required": ["text"],
    "additionalProperties": False,
}


def test_a_long_value_is_shortened_in_its_error() -> None:
    [violation] = ArgumentValidator(SCHEMA).violations({"text": "x" * 200_000})
    assert violation.field == "arguments.text"
    assert "is too long" in violation.description
    assert "200,002 characters" in violation.description  # the value's repr, quoted
    assert len(violation.description) < 200


def test_a_long_unknown_name_is_shortened_in_its_error() -> None:
    violations = ArgumentValidator(SCHEMA).violations({"text": "ok", "k" * 50_000: 1})
    assert [v.description for v in violations] == ["is not a known argument"]
    assert len(violations[0].field) < 120
    assert "50,000 characters" in violations[0].field
