"""Checks tool arguments against the tool's JSON Schema, reporting every problem.

A schema may come from outside agentd (an MCP server lists it, the toolsets file
declares it), so checking arguments against it never leaves the schema and never takes
time the arguments do not warrant:

- references resolve inside the schema only. Nothing is ever retrieved (no URL, no
  file): `schema_problem` refuses a `$ref` or `$dynamicRef` that is not `#…`, and a
  reference that still cannot be resolved when a call is checked makes the call invalid;
- `pattern` and `patternProperties` run on RE2, whose time is linear in the text (Python's
  `re` backtracks: `^(a|a)+$` against a few dozen characters would hold the event loop
  for ever). `schema_problem` refuses a pattern RE2 cannot compile (back-references,
  look-arounds), and `unevaluatedProperties` alongside `patternProperties` (jsonschema
  would match those patterns with `re` there).

(Agent output schemas, `records.agents.definition`, refuse patterns and references altogether.)
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import re2
from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import SchemaError, ValidationError
from referencing import Registry

from core.errors import FieldViolation
from records.tools.model import JSONValue

_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # a pattern it refuses is reported, not printed to stderr


MAX_SHOWN_CHARS = 80
"""A value or a name from the arguments is shown in an error up to this many characters:
an error echoes what is wrong, never a whole argument (it travels in the status's
message and details, which gRPC metadata bounds at 16 KiB)."""


def field_path(prefix: str, path: Iterable[str | int]) -> str:
    """Render a JSON location as `arguments.items[2].name` (each name shortened)."""
    out = prefix
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f".{shortened(str(part))}"
    return out


def shortened(text: str, limit: int = MAX_SHOWN_CHARS) -> str:
    """`text`, or its start with how long it is when it is longer than `limit`."""
    if len(text) <= limit:
        return text
    return f"{text[: limit - 20]}… ({len(text):,} characters)"


@functools.lru_cache(maxsize=1024)
def _compiled(pattern: str) -> Any:
    return re2.compile(pattern, _RE2_OPTIONS)


def _matches(pattern: str, text: str) -> bool:
    """Whether `pattern` (a JSON Schema regular expression: not anchored) matches
    somewhere in `text`, in time linear in `text`."""
    return _compiled(pattern).search(text) is not None


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    if validator.is_type(instance, "string") and not _matches(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, patterns: Mapping[str, Any], instance: Any, schema: Any
) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _matches(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional(instance: Mapping[str, Any], schema: Mapping[str, Any]) -> list[str]:
    """The properties neither `properties` nor `patternProperties` speak for."""
    known = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    return [
        key
        for key in instance
        if key not in known and not any(_matches(pattern, key) for pattern in patterns)
    ]


def _additional_properties(
    validator: Any, allowed: Any, instance: Any, schema: Any
) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    extras = _additional(instance, schema)
    if validator.is_type(allowed, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], allowed, path=extra)
    elif not allowed and extras:
        listed = ", ".join(repr(extra) for extra in sorted(extras))
        yield ValidationError(f"Additional properties are not allowed ({listed} unexpected)")


SafeValidator: Any = validators.extend(  # type: ignore[no-untyped-call]
    Draft202012Validator,
    {
        "pattern": _pattern,
        "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties,
    },
)
"""Draft 2020-12, with RE2 for every regular expression."""

_NO_RETRIEVAL: Registry[Any] = Registry()
"""References resolve within the schema (and the drafts' own meta-schemas) only."""

_SUBSCHEMA = (
    "additionalProperties",
    "propertyNames",
    "unevaluatedProperties",
    "contains",
    "items",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "contentSchema",
    "additionalItems",
)
_SUBSCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems", "items")
_SUBSCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")


def _subschemas(schema: Mapping[str, Any]) -> Iterator[Any]:
    for key in _SUBSCHEMA:
        if isinstance(schema.get(key), Mapping | bool):
            yield schema[key]
    for key in _SUBSCHEMA_LISTS:
        if isinstance(schema.get(key), list):
            yield from schema[key]
    for key in _SUBSCHEMA_MAPS:
        if isinstance(schema.get(key), Mapping):
            yield from schema[key].values()


def _own_problem(schema: Mapping[str, Any], seen: dict[str, bool]) -> str | None:
    """What is wrong with the keywords of one (sub)schema, not looking into its parts."""
    for keyword in ("$ref", "$dynamicRef"):
        ref = schema.get(keyword)
        if ref is not None and not (isinstance(ref, str) and ref.startswith("#")):
            return f"{keyword} {str(ref)[:200]!r} points outside the schema (only #… is followed)"
    patterns = [schema["pattern"]] if "pattern" in schema else []
    if isinstance(schema.get("patternProperties"), Mapping):
        patterns.extend(schema["patternProperties"])
        seen["patternProperties"] = True
    if "unevaluatedProperties" in schema:
        seen["unevaluatedProperties"] = True
    for pattern in patterns:
        if not isinstance(pattern, str):
            return "a pattern is not a string"
        try:
            _compiled(pattern)
        except re2.error:
            return (
                f"pattern {pattern[:200]!r} is not supported (RE2 syntax: no back-references "
                "or look-arounds)"
            )
    return None


def schema_problem(schema: Mapping[str, Any]) -> str | None:
    """Why agentd will not check arguments against `schema` (from outside: an MCP server's,
    a declared tool's), or None: a JSON Schema error, a reference out of the schema, a
    pattern RE2 cannot run. Never quotes more than 200 characters of the schema."""
    try:
        SafeValidator.check_schema(schema)
    except SchemaError as error:
        return f"is not a valid JSON Schema: {error.message[:300]}"
    seen: dict[str, bool] = {}
    pending: list[Any] = [schema]
    while pending:
        item = pending.pop()
        if not isinstance(item, Mapping):
            continue
        found = _own_problem(item, seen)
        if found is not None:
            return found
        pending.extend(_subschemas(item))
    if seen.get("patternProperties") and seen.get("unevaluatedProperties"):
        return "unevaluatedProperties together with patternProperties is not supported"
    return None


class ArgumentValidator:
    """A compiled schema that turns every validation error into field violations."""

    def __init__(self, schema: Mapping[str, JSONValue]) -> None:
        """ValueError when agentd will not check arguments against `schema`
        (`schema_problem`)."""
        problem = schema_problem(schema)
        if problem is not None:
            raise ValueError(problem)
        self._validator = SafeValidator(schema, registry=_NO_RETRIEVAL)
        self._surely_valid = quick_check(schema)

    def violations(self, arguments: Mapping[str, JSONValue]) -> list[FieldViolation]:
        """Every way `arguments` break the schema; a schema that cannot be applied to
        them (a reference that resolves nowhere, a reference loop) is one violation."""
        if self._surely_valid is not None and self._surely_valid(arguments):
            return []
        try:
            errors = sorted(self._validator.iter_errors(arguments), key=lambda e: list(e.path))
            explained = [violation for error in errors for violation in _explain(error)]
        except Exception as error:  # noqa: BLE001 - a schema from outside, whatever it does
            why = f"cannot be checked against the tool's schema ({type(error).__name__})"
            return [FieldViolation("arguments", why)]
        found: list[FieldViolation] = []
        seen: set[tuple[str, str]] = set()
        for violation in explained:
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
        return [
            FieldViolation(field_path("arguments", [*where, name]), "is not a known argument")
            for name in _additional(instance, schema)
        ]
    message = error.message
    shown = repr(instance)
    if len(shown) > MAX_SHOWN_CHARS:  # jsonschema's messages start with the value's repr
        message = message.replace(shown, shortened(shown))
    return [FieldViolation(field_path("arguments", where), shortened(message, 500))]


Check = Callable[[Any], bool]

_ANNOTATIONS = frozenset(
    {"$schema", "$comment", "title", "description", "default", "examples", "deprecated"}
)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


_TYPES: dict[str, Check] = {
    "string": lambda value: isinstance(value, str),
    "boolean": lambda value: isinstance(value, bool),
    "object": lambda value: isinstance(value, dict),
    "array": lambda value: isinstance(value, list),
    "null": lambda value: value is None,
    "number": _number,
    "integer": lambda value: isinstance(value, int) and not isinstance(value, bool),
}


def quick_check(schema: Any) -> Check | None:
    """For a schema of the plain keywords tools mostly use (type, properties, required,
    additionalProperties: false, lengths, bounds, items, enums of strings), a check many
    times faster than jsonschema's that says True only of values the schema accepts
    (False: jsonschema decides, and explains); None for any other schema."""
    if not isinstance(schema, Mapping):
        return None
    checks: list[Check] = []
    for keyword, expected in schema.items():
        if keyword in _ANNOTATIONS:
            continue
        check = _keyword_check(keyword, expected, schema)
        if check is None:
            return None
        checks.append(check)
    return lambda value: all(check(value) for check in checks)


def _keyword_check(keyword: str, expected: Any, schema: Mapping[str, Any]) -> Check | None:
    whole = isinstance(expected, int) and not isinstance(expected, bool)
    if keyword == "type":
        return _TYPES.get(expected) if isinstance(expected, str) else None
    if keyword == "properties" and isinstance(expected, Mapping):
        inner: dict[str, Check] = {}
        for name, sub in expected.items():
            check = quick_check(sub)
            if check is None:
                return None
            inner[name] = check
        return lambda v: (
            not isinstance(v, dict)
            or all(name not in v or check(v[name]) for name, check in inner.items())
        )
    if keyword == "required" and isinstance(expected, list):
        return lambda v: not isinstance(v, dict) or all(name in v for name in expected)
    if keyword == "additionalProperties" and isinstance(expected, bool):
        known = set(schema.get("properties", ()))
        return lambda v: expected or not isinstance(v, dict) or all(key in known for key in v)
    if keyword in ("minLength", "maxLength") and whole:
        low = keyword == "minLength"
        return lambda v: (
            not isinstance(v, str) or (len(v) >= expected if low else len(v) <= expected)
        )
    if keyword in ("minItems", "maxItems") and whole:
        low = keyword == "minItems"
        return lambda v: (
            not isinstance(v, list) or (len(v) >= expected if low else len(v) <= expected)
        )
    if keyword in ("minimum", "maximum") and _number(expected):
        low = keyword == "minimum"
        return lambda v: not _number(v) or (v >= expected if low else v <= expected)
    if (
        keyword == "enum"
        and isinstance(expected, list)
        and all(isinstance(e, str) for e in expected)
    ):
        return lambda v: isinstance(v, str) and v in expected
    if keyword == "items":
        item = quick_check(expected)
        return None if item is None else lambda v: not isinstance(v, list) or all(map(item, v))
    return None
