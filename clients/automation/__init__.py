"""Commands of what runs on its own time: `agentd schedules` (`schedules`) and `agentd
triggers` (`triggers`)."""
