"""Guardrails as declared: a list of plain mappings, from an agent file's `guardrails:`
key or the server's guardrails file, read into `CheckSpec`s.

    guardrails:
      - name: no-cards
        kind: pii
        points: [output, tool_result]
        action: redact
        entities: [card, iban]
      - name: moderation
        kind: moderation          # a registered kind
        points: [input, output]
        action: block
        scope: final              # window (the default) or final
        fail: closed              # open or closed: a check that cannot decide

Every key but name, kind, points, action, scope and fail is an option of the kind, which
checks its own (`base.make_check`). Every problem is reported, each with where it is
(`guardrails[2].points[0]`) and what is wrong, as (field, problem) pairs: the caller
makes them FieldViolations, or an agent file's error (its first).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import re2

from agent.guardrails.base import make_check
from agent.guardrails.options import OptionError
from records.guardrails import Action, CheckSpec, Point, Scope

KEYS = frozenset({"name", "kind", "points", "action", "scope", "fail"})
NAME = re2.compile(r"[a-z0-9](?:[a-z0-9_-]{0,62}[a-z0-9])?")
MAX_CHECKS = 64
MAX_FILE_BYTES = 1 << 20

Problem = tuple[str, str]
"""Where (`guardrails[2].points[0]`) and what is wrong."""


class GuardrailsFileError(ValueError):
    """The guardrails file cannot be used; `problems` says every reason, with where."""

    def __init__(self, path: str, problems: list[Problem]) -> None:
        said = "; ".join(f"{field}: {problem}" for field, problem in problems[:5])
        super().__init__(f"{path}: {said}")
        self.path, self.problems = path, problems


def parse(data: Any, where: str = "guardrails") -> tuple[list[CheckSpec], list[Problem]]:
    """The checks `data` declares, and every problem found (checks with problems left
    out). None declares none."""
    if data is None:
        return [], []
    if not isinstance(data, list) or len(data) > MAX_CHECKS:
        return [], [(where, f"must be a list of at most {MAX_CHECKS} checks")]
    specs: list[CheckSpec] = []
    problems: list[Problem] = []
    named: dict[str, int] = {}
    for index, item in enumerate(data):
        at = f"{where}[{index}]"
        spec, found = _check(item, at)
        problems.extend(found)
        if spec is None:
            continue
        if spec.name in named:
            problems.append((f"{at}.name", f"{spec.name!r} is also {where}[{named[spec.name]}]"))
            continue
        named[spec.name] = index
        specs.append(spec)
    return specs, problems


def _check(item: Any, at: str) -> tuple[CheckSpec | None, list[Problem]]:
    # The YAML reader is imported where a declaration is read, not at start-up (the
    # server's start imports no YAML library unless its files need one).
    from tools.toolsets.yaml_file import Written

    if not isinstance(item, Mapping):
        return None, [(at, "must be a mapping with name, kind, points and action")]
    problems = [
        (f"{at}.{key}", f"written {value.times} times")
        for key, value in item.items()
        if isinstance(value, Written)
    ]
    name, kind = item.get("name"), item.get("kind")
    if not isinstance(name, str) or NAME.fullmatch(name) is None:
        problems.append((f"{at}.name", "1 to 64 of [a-z0-9_-], alphanumeric at both ends"))
    if not isinstance(kind, str) or not kind:
        problems.append((f"{at}.kind", "must name a kind of check, such as pii or deny"))
    points = _points(item.get("points"), f"{at}.points", problems)
    action = _choice(item.get("action"), Action, f"{at}.action", problems)
    default_scope = "final" if kind == "output_schema" else "window"
    scope = _choice(item.get("scope", default_scope), Scope, f"{at}.scope", problems)
    fail = _choice(
        item.get("fail", "default"), ("open", "closed", "default"), f"{at}.fail", problems
    )
    if problems or action is None or scope is None:
        return None, problems
    options = {str(k): v for k, v in item.items() if k not in KEYS}
    if fail != "default":
        options["fail_closed"] = fail == "closed"
    spec = CheckSpec(str(name), str(kind), frozenset(points), action, scope, options)
    try:
        if kind == "output_schema" and "schema" not in options:  # the agent's, by default
            make_check(
                CheckSpec(
                    spec.name, spec.kind, spec.points, action, scope, {**options, "schema": {}}
                )
            )
        else:
            make_check(spec)
    except OptionError as bad:
        option = {"fail_closed": "fail"}.get(bad.option, bad.option)
        return None, [(f"{at}.{option}", bad.problem)]
    except ValueError as bad:
        return None, [(at, str(bad))]
    return spec, []


def _points(value: Any, at: str, problems: list[Problem]) -> list[Point]:
    if not isinstance(value, list) or not value:
        problems.append((at, f"a list of one or more of {', '.join(p.value for p in Point)}"))
        return []
    points = []
    for index, item in enumerate(value):
        point = _choice(item, Point, f"{at}[{index}]", problems, "point")
        if point is not None:
            points.append(point)
    return points


def _choice(value: Any, choices: Any, at: str, problems: list[Problem], what: str = "") -> Any:
    """The member of `choices` (an enum, or a tuple of texts) written as `value`."""
    enum = isinstance(choices, type)
    names: list[str] = [c.value for c in choices.__members__.values()] if enum else list(choices)
    if isinstance(value, str) and value in names:
        return choices(value) if enum else value
    shown = f"unknown {what} {value!r}; one of" if what else f"{value!r} is not one of"
    problems.append((at, f"{shown} {', '.join(n for n in names if n != 'default')}"))
    return None


def load_file(path: str | Path) -> list[CheckSpec]:
    """The checks of the server's guardrails file: YAML, a mapping whose `guardrails` key
    holds the declarations (read as the toolsets file is: safe, a key written twice
    refused, aliases bounded). GuardrailsFileError with every problem found."""
    import yaml

    from tools.toolsets.yaml_file import TooLargeError, load_yaml

    file = Path(path)
    try:
        if file.stat().st_size > MAX_FILE_BYTES:
            raise GuardrailsFileError(str(file), [("(file)", f"is over {MAX_FILE_BYTES} bytes")])
        data = load_yaml(file.read_bytes().decode("utf-8"))
    except OSError as error:
        raise GuardrailsFileError(
            str(file), [("(file)", f"cannot be read: {error.strerror}")]
        ) from None
    except TooLargeError as error:
        raise GuardrailsFileError(str(file), [("(file)", f"cannot be used: {error}")]) from None
    except (UnicodeDecodeError, yaml.YAMLError) as error:
        raise GuardrailsFileError(str(file), [("(file)", f"is not YAML: {error}")]) from None
    if not isinstance(data, Mapping) or set(map(str, data)) - {"guardrails"}:
        raise GuardrailsFileError(
            str(file), [("(file)", "must be a mapping with one key, guardrails")]
        )
    specs, problems = parse(data.get("guardrails"))
    if problems:
        raise GuardrailsFileError(str(file), problems)
    return specs
