"""Conversion between protobuf messages and the records of `records/`, one module per
resource (`tasks` holds the task request, the task and its common parts)."""
