"""The inbox's records: what became of each wait for a person (its history)."""
