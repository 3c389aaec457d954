"""Guardrails' plain values (`model`), imported from `records.guardrails`: a package of
its own because `records/` holds as many modules as a package may."""

from records.guardrails.model import STRENGTH as STRENGTH
from records.guardrails.model import Action as Action
from records.guardrails.model import CheckSpec as CheckSpec
from records.guardrails.model import Finding as Finding
from records.guardrails.model import Point as Point
from records.guardrails.model import Scope as Scope
from records.guardrails.model import Span as Span
from records.guardrails.model import Subject as Subject
from records.guardrails.model import Verdict as Verdict
