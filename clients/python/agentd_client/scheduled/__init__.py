"""Schedules: the methods of `AgentClient` over ScheduleService."""
