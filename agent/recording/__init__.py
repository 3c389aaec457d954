"""The durable trace of each run (`records.traces`): what it captures, and the one writer
that keeps it beside the runs."""
