"""Commands of what runs on its own time: `agentd triggers` (`triggers`)."""
