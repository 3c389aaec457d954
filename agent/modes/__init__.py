"""How the engine works on a task: one module per mode, each returning an `Outcome`
(`agent.running.answers`); what the ReAct loops share is `loops`."""
