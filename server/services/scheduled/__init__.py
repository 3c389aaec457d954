"""Schedules: the service ScheduleService's RPCs call (`service`), the firing loop each
replica runs (`firing`), and who a schedule runs as at each run (`standing`)."""
