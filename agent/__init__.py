"""The agent engine: tasks, their store, the loops that run them. Knows nothing of gRPC."""
