"""Agents working together: a task hands work to sub-agents as child tasks.

An agent's `delegates` are offered to its model as tools `agent.<id>`; a call runs a
child task through the engine's ordinary submission path (`agent.engine.Engine.start`),
so leases, takeover, cancel, events and idempotency apply to it as to any task
(`delegation`). Its `panels` are offered as `panel.<name>`: K members answer the same
question as child tasks and vote (`panels`). `graph` refuses delegation cycles; `memory`
carries a sub-agent's earlier delegations into its next one.
"""
