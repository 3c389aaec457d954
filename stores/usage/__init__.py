"""The usage ledger: one row per model call (`records.usage.ledger`)."""
