"""Tools agents (and callers) can use: the model, the registry, permissions and the built-ins."""
