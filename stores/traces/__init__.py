"""Where tasks' traces are kept (`stores.traces.base`): in memory, or SQL."""
