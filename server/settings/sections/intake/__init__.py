"""Settings of work that starts without a caller waiting: schedules."""
