"""The records of agents working together: a parent task's view of its child tasks and
panels (their events, members of the one event union, `records.events`)."""
