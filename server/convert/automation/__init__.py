"""Conversion of what runs on its own time (schedules, inbound triggers) between protobuf
and records."""
