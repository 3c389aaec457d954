"""The command line of work that starts on its own: `agentd schedules`."""
