"""Schedules: what runs, when (`timing`), and the record of each due time's run."""
