"""Audit records of RPCs, and reading both audit logs (RPCs and tool calls)."""
