"""The fields of a toolset, each read and checked on its own: `InvalidFieldError` names
the field at fault and says what is wrong, never quoting a value (it may be a secret)."""

from __future__ import annotations

import ipaddress
import math
from collections.abc import Mapping
from typing import Any, cast

from tools.builtin.addresses import IPNetwork
from tools.toolsets import environment, url_template
from tools.toolsets.yaml_file import Written
from tools.validation import schema_problem


class InvalidFieldError(Exception):
    """One field of a toolset that cannot be used."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem


def enum_of(body: Mapping[str, Any], key: str, kind: Any, prefix: str) -> Any:
    value = body.get(key)
    if value is None:
        return None
    names = [member.name.lower() for member in kind]
    if not isinstance(value, str) or value.lower() not in names:
        raise InvalidFieldError(f"{prefix}{key}", f"is one of {', '.join(names)}")
    return kind[value.upper()]


def seconds_of(body: Mapping[str, Any], key: str, prefix: str, most: float) -> float | None:
    value = body.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidFieldError(f"{prefix}{key}", "is a number of seconds")
    if not 0 <= value <= most or (key == "timeout_seconds" and value == 0):
        raise InvalidFieldError(f"{prefix}{key}", f"is between 0 and {most:g} seconds")
    return float(value)


def flag_of(body: Mapping[str, Any], key: str, prefix: str) -> bool | None:
    value = body.get(key)
    if value is not None and not isinstance(value, bool):
        raise InvalidFieldError(f"{prefix}{key}", "is true or false")
    return value


def schema_of(raw: Any, where: str) -> Mapping[str, object]:
    schema = map_of(raw, where)
    if schema.get("type") != "object":
        raise InvalidFieldError(where, "must be a JSON Schema of an object (`type: object`)")
    problem = schema_problem(schema)
    if problem is not None:
        raise InvalidFieldError(where, problem)
    return schema


_OPENING = (
    "additionalProperties",
    "patternProperties",
    "unevaluatedProperties",
    "allOf",
    "anyOf",
    "oneOf",
    "if",
    "$ref",
    "$dynamicRef",
    "dependentSchemas",
)


def parameters_of(raw: Any, url: str, where: str) -> Mapping[str, Any]:
    """A declared tool's schema; without one, each URL placeholder is a required text."""
    names = url_template.placeholders(url)
    if raw is None:
        text = {"type": ["string", "number", "integer", "boolean"]}
        raw = {"type": "object", "properties": dict.fromkeys(names, text), "required": names}
    schema = closed(schema_of(raw, where))
    properties = schema.get("properties") or {}
    missing = [name for name in names if name not in properties]
    if missing and schema.get("additionalProperties") is False:
        raise InvalidFieldError(where, f"does not declare {{{missing[0]}}} of the URL")
    return schema


def closed(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """A declared tool's schema, taking no argument it does not name (`additionalProperties:
    false`) unless it says otherwise or composes schemas (where that would refuse the
    arguments its parts name)."""
    if any(key in schema for key in _OPENING):
        return schema
    return {**schema, "additionalProperties": False}


def text_map(raw: Any, where: str) -> dict[str, str]:
    """A mapping of names to text (HTTP headers, environment variables): secrets only by
    `${VAR}`, every reference expanded."""
    body = map_of(raw or {}, where)
    out: dict[str, str] = {}
    for key, value in body.items():
        name = str(key)
        if isinstance(value, Written) or not isinstance(value, str | int | float):
            raise InvalidFieldError(f"{where}.{name}", "must be text (written once)")
        text = str(value)
        if environment.written_out(name, text):
            raise InvalidFieldError(f"{where}.{name}", SECRET)
        out[name] = expanded(text, f"{where}.{name}")
    return out


SECRET = (
    "holds a secret written out in the file; put it in an environment variable and write "
    "${VARIABLE} instead"
)


def text_of(value: Any, where: str, *, expand: bool = False) -> str:
    if isinstance(value, Written) or not isinstance(value, str) or not value.strip():
        if isinstance(value, str) and where.endswith("description"):
            return value
        raise InvalidFieldError(where, "must be text (written once)")
    if environment.credential_shaped(value):
        raise InvalidFieldError(where, SECRET)
    if len(value) > 10_000:
        raise InvalidFieldError(where, "is over 10,000 characters")
    return expanded(value, where) if expand else value


def expanded(value: str, where: str) -> str:
    try:
        return environment.expand(value)
    except environment.UnsetVariableError as unset:
        raise InvalidFieldError(where, str(unset)) from None


def networks_of(raw: Any, where: str) -> tuple[IPNetwork, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise InvalidFieldError(where, "must be a list of networks (CIDR)")
    try:
        return tuple(ipaddress.ip_network(str(net), strict=False) for net in raw)
    except ValueError as error:
        raise InvalidFieldError(where, str(error)) from None


def no_written_secrets(value: Any, where: str) -> None:
    """InvalidFieldError naming the first text anywhere in `value` that holds something
    shaped like a credential (a `${VAR}` reference is not text of the file's)."""
    pending: list[tuple[str, Any]] = [(where, value)]
    while pending:
        field, item = pending.pop()
        if isinstance(item, str) and environment.credential_shaped(item):
            raise InvalidFieldError(field, SECRET)
        if isinstance(item, Mapping):
            pending.extend((f"{field}.{key}".lstrip("."), v) for key, v in item.items())
        elif isinstance(item, list):
            pending.extend((f"{field}[{i}]", v) for i, v in enumerate(item))


def map_of(raw: Any, where: str) -> Mapping[str, Any]:
    if isinstance(raw, Written):
        raise InvalidFieldError(where, f"is written {raw.times} times")
    if not isinstance(raw, Mapping):
        raise InvalidFieldError(where, "must be a mapping")
    for key, value in raw.items():
        if isinstance(value, Written):
            raise InvalidFieldError(f"{where}.{key}".lstrip("."), f"is written {value.times} times")
    return cast(Mapping[str, Any], raw)


def known(body: Mapping[str, Any], keys: tuple[str, ...], where: str) -> None:
    for key in body:
        if key not in keys:
            field = f"{where}.{key}".lstrip(".")
            raise InvalidFieldError(field, f"is not a known key (known: {', '.join(keys)})")
