"""The Check protocol every guardrail kind implements, and the table of kinds.

A check inspects one text for one subject and answers its findings (none: it passes).
A check that cannot decide now (its service is down, its model timed out) raises
GuardrailUnavailable, and the Guard applies the check's fail mode; it never passes
silently."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from records.guardrails import CheckSpec, Finding, Subject


class Check(Protocol):
    spec: CheckSpec
    needs_model: bool

    async def inspect(self, text: str, subject: Subject) -> list[Finding]: ...


class GuardrailUnavailable(Exception):  # noqa: N818 - a state the Guard acts on, not a bug
    """The check cannot decide now (service down, timeout, an answer it cannot use)."""

    def __init__(self, check: str, detail: str) -> None:
        super().__init__(f"guardrail {check!r} is unavailable: {detail}")
        self.check = check
        self.detail = detail


_KINDS: dict[str, Callable[[CheckSpec], Check]] = {}


def register_kind(kind: str, factory: Callable[[CheckSpec], Check]) -> None:
    """Make checks of `kind` with `factory` (a later registration replaces an earlier)."""
    _KINDS[kind] = factory


def make_check(spec: CheckSpec) -> Check:
    """The check a spec declares; ValueError for a kind nobody registered."""
    factory = _KINDS.get(spec.kind)
    if factory is None:
        raise ValueError(f"unknown guardrail kind {spec.kind!r}")
    return factory(spec)
