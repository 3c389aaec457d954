"""The URL template of a declared HTTP tool, kept as the file writes it.

`{name}` takes the call's argument of that name, percent-encoded as one piece (`.` and
`..` refused), and may stand only after the host and port, in the path or the query: the
model never chooses where a request goes. `${VAR}` is the environment variable VAR, read
when a request is made: the template as written (not its secrets) is what callers and
models are shown. Both are replaced in one pass, so neither can bring in the other.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from urllib.parse import quote

from core.errors import FieldViolation, InvalidArgumentError
from records.tools.model import JSONValue
from records.tools.outcomes import ToolFailed
from tools.builtin.http import check_url
from tools.toolsets import environment

TOKEN = re.compile(
    r"\$\{(?P<env>[A-Za-z_][A-Za-z0-9_]{0,127})\}|\{(?P<arg>[A-Za-z_][A-Za-z0-9_]{0,63})\}"
)
_MARK = "\ue000"
"""Stands for a placeholder while the template is checked (no variable holds it)."""


def placeholders(template: str) -> list[str]:
    """The argument names the template takes, in order."""
    return [m.group("arg") for m in TOKEN.finditer(template) if m.group("arg")]


def problem(template: str) -> str | None:
    """Why the template cannot be used, or None. Where the host ends is judged with the
    variables expanded (a variable may hold the scheme and host)."""
    try:
        expanded = TOKEN.sub(lambda m: _MARK if m.group("arg") else _env(m.group("env")), template)
    except environment.UnsetVariableError as unset:
        return str(unset)
    if not expanded.startswith(("http://", "https://")):
        return "must be an http:// or https:// URL"
    start = expanded.index("://") + 3
    ends = [i for i in (expanded.find(c, start) for c in "/?#") if i != -1]
    if _MARK in expanded[start : min(ends, default=len(expanded))]:
        return (
            "a {placeholder} may stand only in the path or the query, after the host and "
            "port: the model does not choose where a request goes"
        )
    try:
        check_url(expanded.replace(_MARK, "x"), "url")
    except InvalidArgumentError as invalid:
        return invalid.field_violations[0].description
    return None


def fill(template: str, arguments: Mapping[str, JSONValue]) -> str:
    """The URL of one request: every placeholder and reference replaced."""

    def one(match: re.Match[str]) -> str:
        name = match.group("arg")
        if not name:
            try:
                return _env(match.group("env"))
            except environment.UnsetVariableError as unset:
                raise ToolFailed(f"the tool cannot be used now: {unset}") from None
        value = arguments.get(name)
        if value is None or isinstance(value, dict | list):
            raise InvalidArgumentError(
                [FieldViolation(f"arguments.{name}", "is needed (a value) for the URL")]
            )
        text = scalar(value)
        if text in (".", ".."):
            raise InvalidArgumentError(
                [FieldViolation(f"arguments.{name}", "cannot be . or .. in a URL path")]
            )
        return quote(text, safe="")

    return TOKEN.sub(one, template)


def scalar(value: JSONValue) -> str:
    """An argument's value as it goes into a URL (a list or an object as JSON)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def _env(name: str) -> str:
    return environment.expand(f"${{{name}}}")
