"""Guardrails: checks on what goes into and out of a task (its input, the model's output,
a tool call's arguments, a tool's result), by kind; `base` holds the Check protocol."""
