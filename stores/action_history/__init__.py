"""The inbox's history: one entry per step of each wait for a person
(`records.inbox.history`)."""
