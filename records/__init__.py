"""The plain records agentd keeps: tasks and their events, checkpoints, agent definitions,
conversations, knowledge items, tool specs, grants, approvals, audit records and keys.

The bottom of the house above `core/`: records import nothing first-party but `core`
and each other; stores keep them, the engine, tools and server make and read them."""
