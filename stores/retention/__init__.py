"""Retention: durable records swept once past their time (`base` says the contract)."""
