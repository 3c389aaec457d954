"""Work that starts on its own: schedules' messages <-> records."""
