"""Budgets (`records.usage.budgets`): their definitions and their window counters."""
