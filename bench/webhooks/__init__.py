"""Benchmarks of webhooks: what the outbox costs a task's status change."""
