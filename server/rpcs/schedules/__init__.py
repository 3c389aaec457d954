"""ScheduleService's servicer."""
