"""Artifacts: the named, versioned outputs of a task tree (`base` says the contract)."""
