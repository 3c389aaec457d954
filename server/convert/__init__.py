"""Conversion between protobuf messages and the records of `records/`, one module per
resource (`tasks` holds the task request, the task and its common parts; `a2a` is A2A's
lf.a2a.v1, imported only when A2A is on), and page tokens for every list (`pages`)."""
