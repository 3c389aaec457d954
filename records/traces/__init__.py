"""A task's durable trace: its model calls, tool calls, critic verdicts and decisions
(`records.traces.model`), kept after its events are gone (`stores.traces`)."""
