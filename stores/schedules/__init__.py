"""Schedules and the runs of their due times (`records.schedules`)."""
