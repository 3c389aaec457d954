"""Audit records of RPCs, and reading the audit logs (RPCs, tool calls, guardrail decisions)."""
