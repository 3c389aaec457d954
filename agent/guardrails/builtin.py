"""The built-in kinds of check: personal data, deny and allow patterns, a length limit
and the agent's output schema. None of them costs a round trip (`needs_model` False);
each reads and checks its options when it is made, so a bad declaration fails there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from agent.guardrails import options
from agent.guardrails.options import OptionError
from agent.guardrails.recognisers import ENTITIES, recognisers
from agent.llm.structured import fitting_json
from records.guardrails import CheckSpec, Finding, Point, Scope, Span, Subject

ENTITY_NAMES = {
    "email": "an e-mail address",
    "card": "a card number",
    "iban": "an IBAN",
    "ip": "an IP address",
    "phone": "a phone number",
}


class PersonalData:
    """`pii`: e-mail addresses, card numbers, IBANs, IP addresses and phone numbers
    (`entities`, all by default); `region` reads national phone numbers (without it, only
    international ones are found)."""

    needs_model = False

    def __init__(self, spec: CheckSpec) -> None:
        self.spec = spec
        values = options.only(spec, "entities", "region")
        self.entities = tuple(values.get("entities", ENTITIES))
        if "entities" in values:
            options.texts(spec, "entities", 1, len(ENTITIES))
            wrong = [name for name in self.entities if name not in ENTITIES]
            if wrong:
                raise OptionError(
                    spec.name, "entities", f"{wrong[0]!r}; one of {', '.join(ENTITIES)}"
                )
        region = values.get("region")
        if region is not None and not (isinstance(region, str) and len(region) == 2):
            raise OptionError(spec.name, "region", "a two-letter country code, such as US")
        self._recognisers = recognisers(self.entities, region.upper() if region else None)

    async def inspect(self, text: str, subject: Subject) -> list[Finding]:
        findings = []
        for name, recognise in zip(self.entities, self._recognisers, strict=True):
            spans = recognise(text)
            if spans:
                reason = f"{ENTITY_NAMES[name]} ({len(spans)} found)"
                findings.append(Finding(self.spec.name, name, reason, tuple(spans)))
        return findings


class Deny:
    """`deny`: text that must not pass, as RE2 `patterns` or plain `phrases` (matched as
    written, in any case); each is a rule of its own, `deny:<id>`."""

    needs_model = False

    def __init__(self, spec: CheckSpec) -> None:
        self.spec = spec
        options.only(spec, "patterns", "phrases")
        self.rules = options.patterns(spec, "patterns", False) + options.patterns(
            spec, "phrases", True
        )
        if not self.rules:
            raise OptionError(spec.name, "patterns", "a deny check needs patterns or phrases")

    async def inspect(self, text: str, subject: Subject) -> list[Finding]:
        findings = []
        for name, pattern in self.rules:
            spans = tuple(
                Span(m.start(), m.end(), "DENY")
                for m in pattern.finditer(text)
                if m.end() > m.start()
            )
            if spans:
                findings.append(Finding(self.spec.name, f"deny:{name}", f"matches {name!r}", spans))
        return findings


class Allow:
    """`allow`: the text as a whole must match one of the RE2 `patterns` (an allowed URL,
    say); anything else is a finding over the whole text."""

    needs_model = False

    def __init__(self, spec: CheckSpec) -> None:
        self.spec = spec
        options.only(spec, "patterns")
        self.rules = options.patterns(spec, "patterns", False)
        if not self.rules:
            raise OptionError(spec.name, "patterns", "an allow check needs patterns")

    async def inspect(self, text: str, subject: Subject) -> list[Finding]:
        if any(pattern.fullmatch(text) is not None for _, pattern in self.rules):
            return []
        span = Span(0, len(text), "NOT_ALLOWED")
        return [Finding(self.spec.name, "allow", "matches none of the allowed patterns", (span,))]


class Length:
    """`length`: at most `max_chars` characters; what is over is the finding's span, so
    redacting cuts the text there."""

    needs_model = False

    def __init__(self, spec: CheckSpec) -> None:
        self.spec = spec
        options.only(spec, "max_chars")
        self.max_chars = options.whole(spec, "max_chars", 1, 100_000_000)

    async def inspect(self, text: str, subject: Subject) -> list[Finding]:
        if len(text) <= self.max_chars:
            return []
        reason = f"{len(text)} characters; at most {self.max_chars}"
        span = Span(self.max_chars, len(text), "LENGTH")
        return [Finding(self.spec.name, "length", reason, (span,))]


class OutputSchema:
    """`output_schema`: the final answer must be JSON of the agent's output schema (the
    same check as the answer's shaping, `agent.llm.structured.fitting_json`). Its
    `schema` is the agent's, which the guard fills in (`Guard.build`)."""

    needs_model = False

    def __init__(self, spec: CheckSpec) -> None:
        self.spec = spec
        schema = options.only(spec, "schema").get("schema")
        if spec.points != {Point.OUTPUT} or spec.scope is not Scope.FINAL:
            raise OptionError(spec.name, "points", "output_schema checks the final answer only")
        if not isinstance(schema, Mapping):
            raise OptionError(spec.name, "schema", "no schema: the agent has no output_schema")
        try:
            Draft202012Validator.check_schema(schema)
        except SchemaError as bad:
            raise OptionError(spec.name, "schema", f"not a JSON Schema: {bad.message}") from None
        self.schema: Mapping[str, Any] = schema

    async def inspect(self, text: str, subject: Subject) -> list[Finding]:
        if fitting_json(text, self.schema) is not None:
            return []
        span = Span(0, len(text), "SCHEMA")
        reason = "the answer is not JSON of the agent's output schema"
        return [Finding(self.spec.name, "schema", reason, (span,))]
