"""Reading a check's options: each kind's own, and the three every check may have.

Every check may say how the guard treats it apart from what it finds: `fail_closed`
(whether a check that cannot decide blocks; the guard's default otherwise),
`placeholder` (what a redacted span becomes, `{LABEL}` standing for its label) and
`fields` (at a tool call's arguments, the top-level arguments it looks at; all of them
otherwise). A bad option is an `OptionError`, which names it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import re2

from records.guardrails import CheckSpec

COMMON = frozenset({"fail_closed", "placeholder", "fields"})
DEFAULT_PLACEHOLDER = "[{LABEL}]"
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # a pattern it refuses is reported, not printed to stderr


class OptionError(ValueError):
    """A check's option that cannot be used: `option` names it (`kind` for the kind)."""

    def __init__(self, check: str, option: str, problem: str) -> None:
        super().__init__(f"guardrail {check!r}: {option}: {problem}")
        self.check, self.option, self.problem = check, option, problem


def only(spec: CheckSpec, *keys: str) -> Mapping[str, Any]:
    """The spec's options, once it is known they hold nothing but `keys` and COMMON."""
    unknown = sorted(set(map(str, spec.options)) - COMMON - set(keys))
    if unknown:
        known = ", ".join(sorted({*keys, *COMMON}))
        raise OptionError(spec.name, unknown[0], f"unknown option for {spec.kind}; known: {known}")
    return spec.options


def check_common(spec: CheckSpec) -> None:
    """OptionError for a bad common option."""
    fail = spec.options.get("fail_closed")
    if fail is not None and not isinstance(fail, bool):
        raise OptionError(spec.name, "fail_closed", "must be true or false")
    placeholder(spec, "LABEL")
    fields(spec)


def placeholder(spec: CheckSpec, label: str) -> str:
    """What a span labelled `label` becomes when `spec`'s check redacts it."""
    template = spec.options.get("placeholder", DEFAULT_PLACEHOLDER)
    if not isinstance(template, str) or len(template) > 64:
        raise OptionError(spec.name, "placeholder", "must be text of at most 64 characters")
    return template.replace("{LABEL}", label)


def fail_closed(spec: CheckSpec) -> bool | None:
    """Whether the check blocks when it cannot decide (None: the guard's default)."""
    value = spec.options.get("fail_closed")
    return value if isinstance(value, bool) else None


def fields(spec: CheckSpec) -> frozenset[str] | None:
    """The top-level arguments the check looks at in a tool call (None: all of them)."""
    value = spec.options.get("fields")
    if value is None:
        return None
    return frozenset(texts(spec, "fields", 1, 64))


def texts(spec: CheckSpec, key: str, least: int, most: int) -> list[str]:
    """A list of `least` to `most` texts of at most 1000 characters each."""
    value = spec.options.get(key, [])
    if isinstance(value, str) or not isinstance(value, list | tuple):
        raise OptionError(spec.name, key, "must be a list of texts")
    if not least <= len(value) <= most:
        raise OptionError(spec.name, key, f"must hold {least} to {most} entries")
    for index, item in enumerate(value):
        if not isinstance(item, str) or not item or len(item) > 1000:
            raise OptionError(spec.name, f"{key}[{index}]", "must be text of 1 to 1000 characters")
    return list(value)


def whole(spec: CheckSpec, key: str, least: int, most: int) -> int:
    value = spec.options.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= most:
        raise OptionError(spec.name, key, f"must be a whole number from {least} to {most}")
    return value


def patterns(spec: CheckSpec, key: str, literal: bool) -> list[tuple[str, Any]]:
    """The named patterns under `key`, compiled with RE2: a list (ids `<key>-1`, ...) or a
    mapping of id to pattern; a phrase (`literal`) matches as written, in any case. A
    pattern that RE2 refuses, or that matches the empty text, is refused by name."""
    value = spec.options.get(key)
    if value is None:
        return []
    if isinstance(value, Mapping):
        named = [(str(name), text) for name, text in value.items()]
    elif isinstance(value, list | tuple):
        named = [(f"{key}-{n}", text) for n, text in enumerate(value, start=1)]
    else:
        raise OptionError(spec.name, key, "must be a list of patterns, or a mapping of id to one")
    if len(named) > 500:
        raise OptionError(spec.name, key, "at most 500 entries")
    compiled: list[tuple[str, Any]] = []
    for index, (name, text) in enumerate(named):
        where = f"{key}.{name}" if isinstance(value, Mapping) else f"{key}[{index}]"
        if not isinstance(text, str) or not text or len(text) > 1000:
            raise OptionError(spec.name, where, "must be text of 1 to 1000 characters")
        try:
            pattern = re2.compile("(?i)" + re2.escape(text) if literal else text, _RE2_OPTIONS)
        except re2.error as error:
            said = error.args[0] if error.args else ""
            said = said.decode(errors="replace") if isinstance(said, bytes) else str(said)
            raise OptionError(spec.name, where, f"not a valid RE2 pattern: {said}") from None
        if pattern.fullmatch("") is not None:
            raise OptionError(spec.name, where, "matches the empty text")
        compiled.append((name, pattern))
    return compiled
