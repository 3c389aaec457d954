"""A task's guard: the checks that apply to it, run at a point and combined into a verdict.

A guard holds the server's checks and the agent's (`Guard.build`). At each point it runs
the checks that look there and combines what they found: the strongest action wins
(BLOCK > REDACT > RECORD); for REDACT every span of a redacting check is replaced by its
placeholder (overlapping spans merged into one). A check that cannot decide
(`GuardrailUnavailable`) blocks when it fails closed, and is recorded as let through when
it fails open. A guard without checks at a point costs a dictionary lookup there.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from agent.guardrails import options
from agent.guardrails.base import Check, GuardrailUnavailable, make_check
from records.guardrails import (
    STRENGTH,
    Action,
    CheckSpec,
    Finding,
    Point,
    Scope,
    Span,
    Subject,
    Verdict,
)
from tools.validation import field_path

WHOLE = "REDACTED"
"""The label of what a redacting finding without spans covers: the whole text."""


@dataclass(frozen=True, slots=True)
class Judged:
    """A finding with the action it calls for and the spec of the check that found it."""

    action: Action
    finding: Finding
    spec: CheckSpec


class Guard:
    """The checks that apply to one task. `fail_closed` is what a check that cannot
    decide does when its spec does not say (`fail_closed` option)."""

    __slots__ = ("_at", "checks", "fail_closed")

    def __init__(self, checks: Sequence[Check] = (), *, fail_closed: bool = True) -> None:
        names = [check.spec.name for check in checks]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise ValueError(f"guardrail {twice[0]!r} is declared twice")
        self.checks = tuple(checks)
        self.fail_closed = fail_closed
        self._at = {point: tuple(c for c in checks if point in c.spec.points) for point in Point}

    @classmethod
    def build(
        cls,
        specs: Iterable[CheckSpec],
        *,
        output_schema: Mapping[str, Any] | None = None,
        fail_closed: bool = True,
    ) -> Guard:
        """The guard of `specs` (the server's, then the agent's); an output_schema check
        that names no schema of its own gets the agent's `output_schema`. ValueError
        (OptionError) for a spec that cannot be made, a name declared twice."""
        made = []
        for spec in specs:
            if spec.kind == "output_schema" and "schema" not in spec.options:
                spec = replace(spec, options={**spec.options, "schema": output_schema})
            made.append(make_check(spec))
        return cls(made, fail_closed=fail_closed)

    def watches(self, point: Point) -> bool:
        """Whether any check looks at `point` (none: inspecting there returns at once)."""
        return bool(self._at[point])

    async def inspect(
        self, point: Point, text: str, subject: Subject, *, final: bool = False
    ) -> Verdict:
        """The verdict of the checks at `point` on `text`; checks of Scope.FINAL run only
        when `final` (the whole of a final answer, or a text that is not streamed)."""
        checks = self._at[point]
        if not checks:
            return Verdict(None, (), text)
        chosen = [c for c in checks if final or c.spec.scope is Scope.WINDOW]
        return verdict(text, await self.judge(chosen, text, subject))

    async def inspect_final(self, point: Point, text: str, subject: Subject) -> Verdict:
        """The verdict of the Scope.FINAL checks alone: for a final answer whose windows
        a `GuardedStream` has checked already."""
        chosen = [c for c in self._at[point] if c.spec.scope is Scope.FINAL]
        if not chosen:
            return Verdict(None, (), text)
        return verdict(text, await self.judge(chosen, text, subject))

    def checks_at(self, point: Point, *, final: bool) -> tuple[Check, ...]:
        """The checks that run at `point` (Scope.FINAL ones only when `final`)."""
        return tuple(c for c in self._at[point] if final or c.spec.scope is Scope.WINDOW)

    async def judge(self, checks: Sequence[Check], text: str, subject: Subject) -> list[Judged]:
        """What `checks` find in `text` (side by side), each with its action; a check
        that cannot decide judged by its fail mode."""
        results = await asyncio.gather(*(self._one(check, text, subject) for check in checks))
        return [judged for found in results for judged in found]

    async def _one(self, check: Check, text: str, subject: Subject) -> list[Judged]:
        spec = check.spec
        # A check may decide the action of each finding itself (an operator's policy
        # service says block or redact); else its declared action applies.
        action_of = getattr(check, "action_of", None)
        try:
            found = await check.inspect(text, subject)
            if action_of is not None:
                return [Judged(action_of(f), f, spec) for f in found]
            return [Judged(spec.action, f, spec) for f in found]
        except GuardrailUnavailable as down:
            closed = options.fail_closed(spec)
            if self.fail_closed if closed is None else closed:
                reason = f"could not check, so blocked: {down.detail}"
                return [Judged(Action.BLOCK, Finding(spec.name, "unavailable", reason), spec)]
            reason = f"could not check, let through: {down.detail}"
            return [Judged(Action.RECORD, Finding(spec.name, "unavailable", reason), spec)]

    async def inspect_arguments(
        self, point: Point, arguments: Mapping[str, Any], subject: Subject
    ) -> tuple[Verdict, Mapping[str, Any]]:
        """The verdict on a tool call's arguments, and the arguments to go on with (for
        REDACT with the redacted strings rewritten; else `arguments` themselves). Each
        string in them is checked on its own, its path (`arguments.items[2].name`) leading
        the finding's reason; a check with `fields` sees only those top-level arguments.
        A model-based check sees the arguments' JSON once, and redacting, rewrites every
        string it saw whole. The verdict's text is the JSON of the arguments to go on with."""
        checks = self.checks_at(point, final=True)
        if not checks:
            return Verdict(None, (), ""), arguments
        leaves = list(_leaves(arguments, ()))
        per_leaf: dict[tuple[str | int, ...], list[Judged]] = {path: [] for path, _ in leaves}
        for check in checks:
            seen = [(p, s) for p, s in leaves if _sees(check.spec, p)]
            if check.needs_model and seen:
                wanted = options.fields(check.spec)
                shown = {k: v for k, v in arguments.items() if wanted is None or k in wanted}
                found = await self.judge([check], _json(shown), subject)
                for path, _ in seen:
                    per_leaf[path].extend(replace(j, finding=_spanless(j.finding)) for j in found)
                continue
            for path, text in seen:
                per_leaf[path].extend(await self.judge([check], text, subject))
        return _arguments_verdict(arguments, dict(leaves), per_leaf)


def verdict(text: str, judged: Sequence[Judged]) -> Verdict:
    """The findings combined: the strongest action, and for REDACT the text with every
    span of a redacting finding replaced by its check's placeholder."""
    if not judged:
        return Verdict(None, (), text)
    action = max((j.action for j in judged), key=STRENGTH.__getitem__)
    findings = tuple(j.finding for j in judged)
    if action is not Action.REDACT:
        return Verdict(action, findings, text)
    return Verdict(action, findings, redacted(text, judged))


def redacted(text: str, judged: Sequence[Judged]) -> str:
    """`text` with the spans of the redacting findings replaced (a finding without spans
    covers the whole text); overlapping spans become one, with the first one's placeholder."""
    marks: list[tuple[int, int, str]] = []
    for j in judged:
        if j.action is Action.REDACT:
            spans = j.finding.spans or (Span(0, len(text), WHOLE),)
            marks.extend((s.start, s.end, options.placeholder(j.spec, s.label)) for s in spans)
    out: list[str] = []
    at = 0
    for start, end, mark in sorted(marks, key=lambda m: (m[0], -m[1])):
        start, end = max(start, 0), min(end, len(text))
        if end <= at:
            continue  # inside a span replaced already
        if start >= at:
            out.extend((text[at:start], mark))
        at = end
    out.append(text[at:])
    return "".join(out)


def _leaves(value: Any, path: tuple[str | int, ...]) -> Iterator[tuple[tuple[str | int, ...], str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _leaves(item, (*path, str(key)))
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from _leaves(item, (*path, index))


def _sees(spec: CheckSpec, path: tuple[str | int, ...]) -> bool:
    wanted = options.fields(spec)
    return wanted is None or (bool(path) and path[0] in wanted)


def _spanless(finding: Finding) -> Finding:
    return replace(finding, spans=())


def _rebuilt(
    value: Any, new: Mapping[tuple[str | int, ...], str], path: tuple[str | int, ...] = ()
) -> Any:
    """`value` with the strings at the paths of `new` replaced."""
    if isinstance(value, str):
        return new.get(path, value)
    if isinstance(value, Mapping):
        return {key: _rebuilt(item, new, (*path, str(key))) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_rebuilt(item, new, (*path, index)) for index, item in enumerate(value)]
    return value


def _arguments_verdict(
    arguments: Mapping[str, Any],
    leaves: Mapping[tuple[str | int, ...], str],
    per_leaf: Mapping[tuple[str | int, ...], list[Judged]],
) -> tuple[Verdict, Mapping[str, Any]]:
    judged = [
        replace(j, finding=replace(j.finding, reason=f"{field_path('arguments', p)}: {why}"))
        for p, found in per_leaf.items()
        for j in found
        for why in (j.finding.reason,)
    ]
    combined = verdict("", judged)
    if combined.action is not Action.REDACT:
        return replace(combined, text=_json(arguments)), arguments
    new = {path: redacted(leaves[path], found) for path, found in per_leaf.items() if found}
    rewritten = _rebuilt(arguments, new)
    return replace(combined, text=_json(rewritten)), rewritten


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)
