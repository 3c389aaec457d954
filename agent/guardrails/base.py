"""What a check is, and the kinds of check a declaration may name.

A check (`Check`) looks at one text and returns what it found; whether it runs, and what
follows from its findings, is the guard's business (`agent.guardrails.guard`). A check
that cannot decide now (its model or its service is down) raises `GuardrailUnavailable`,
and the guard applies its fail mode. Kinds are made by name (`make_check`): the built-in
ones (`agent.guardrails.builtin`) and those registered beside them (`register_kind`),
such as the model-based checks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from agent.guardrails import builtin, options
from agent.guardrails.options import OptionError
from records.guardrails import CheckSpec, Finding, Subject, Verdict


class Check(Protocol):
    """One declared check, ready to look at text."""

    spec: CheckSpec
    needs_model: bool
    """True for checks that cost a round trip (moderation, a judge, a policy service):
    on streamed output, one of Scope.FINAL runs on the final answer only."""

    async def inspect(self, text: str, subject: Subject) -> list[Finding]:
        """What the check finds in `text` (nothing: it passes)."""
        ...


class GuardrailUnavailable(Exception):  # noqa: N818 - the shared API names it so
    """A check that cannot decide now; the guard blocks or lets the text through, as the
    check's fail mode says."""

    def __init__(self, check: str, detail: str) -> None:
        super().__init__(f"guardrail {check!r} is unavailable: {detail}")
        self.check, self.detail = check, detail


class Blocked(Exception):  # noqa: N818 - a stop signal, named for what happened
    """A check blocked the text: `verdict` says which and why. Nothing of the text that
    tripped it has been released."""

    def __init__(self, verdict: Verdict) -> None:
        rules = ", ".join(f"{f.check}:{f.rule}" for f in verdict.findings)
        super().__init__(f"blocked by a guardrail ({rules})")
        self.verdict = verdict


Factory = Callable[[CheckSpec], Check]

KINDS: dict[str, Factory] = {
    "pii": builtin.PersonalData,
    "deny": builtin.Deny,
    "allow": builtin.Allow,
    "length": builtin.Length,
    "output_schema": builtin.OutputSchema,
}
"""The kinds of check by name: the built-in ones, and those registered since."""


def register_kind(kind: str, factory: Factory, *, replace: bool = False) -> None:
    """Let declarations name `kind`, made by `factory` (which raises ValueError, best an
    OptionError, for bad options). Registering a kind again with another factory is a
    mistake (ValueError) unless `replace`: a server registers the kinds that need its
    settings (moderation, judge, policy_service) as it starts."""
    known = KINDS.get(kind)
    if known is not None and known is not factory and not replace:
        raise ValueError(f"the guardrail kind {kind!r} is registered already")
    KINDS[kind] = factory


def make_check(spec: CheckSpec) -> Check:
    """The check `spec` declares; ValueError (an OptionError, naming the option or
    `kind`) for an unknown kind or bad options."""
    factory = KINDS.get(spec.kind)
    if factory is None:
        raise OptionError(
            spec.name, "kind", f"unknown kind {spec.kind!r}; one of {', '.join(sorted(KINDS))}"
        )
    if not spec.points:
        raise OptionError(spec.name, "points", "a check needs at least one point")
    options.check_common(spec)
    return factory(spec)
