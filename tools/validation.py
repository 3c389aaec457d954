"""Checks tool arguments against the tool's JSON Schema, reporting every problem."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from core.errors import FieldViolation
from tools.model import JSONValue


def field_path(prefix: str, path: Iterable[str | int]) -> str:
    """Render a JSON location as `arguments.items[2].name`."""
    out = prefix
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


class ArgumentValidator:
    """A compiled schema that turns every validation error into field violations."""

    def __init__(self, schema: Mapping[str, JSONValue]) -> None:
        Draft202012Validator.check_schema(schema)
        self._validator = Draft202012Validator(schema)

    def violations(self, arguments: Mapping[str, JSONValue]) -> list[FieldViolation]:
        found: list[FieldViolation] = []
        errors = sorted(self._validator.iter_errors(arguments), key=lambda e: list(e.path))
        seen: set[tuple[str, str]] = set()
        for error in errors:
            for violation in _explain(error):
                key = (violation.field, violation.description)
                if key not in seen:
                    seen.add(key)
                    found.append(violation)
        return found


def _explain(error: ValidationError) -> list[FieldViolation]:
    """One violation per offending field; `required` and `additionalProperties`
    errors name the missing or unexpected property itself."""
    where = list(error.absolute_path)
    instance: Any = error.instance
    expected: Any = error.validator_value
    schema: Any = error.schema
    if error.validator == "required" and isinstance(instance, Mapping):
        return [
            FieldViolation(field_path("arguments", [*where, name]), "is required")
            for name in expected
            if name not in instance
        ]
    if error.validator == "additionalProperties" and isinstance(instance, Mapping):
        known = set(schema.get("properties", {}))
        patterns = [re.compile(p) for p in schema.get("patternProperties", {})]
        return [
            FieldViolation(field_path("arguments", [*where, name]), "is not a known argument")
            for name in instance
            if name not in known and not any(p.search(name) for p in patterns)
        ]
    return [FieldViolation(field_path("arguments", where), error.message)]
