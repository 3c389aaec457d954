"""Guardrails' records: where a check looks (Point), what it does (Action), when a
model-based check runs (Scope), what it found (Finding, Span), of whom (Subject), and a
declared check (CheckSpec). A package, as records/ holds its limit of loose modules."""

from records.guardrails.model import Action, CheckSpec, Finding, Point, Scope, Span, Subject

__all__ = ["Action", "CheckSpec", "Finding", "Point", "Scope", "Span", "Subject"]
