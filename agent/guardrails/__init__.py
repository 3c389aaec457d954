"""Guardrails: checks on what goes into a task and what comes out of it, at four points
(its input, the model's output, a tool call's arguments, a tool's result).

A declaration (`declarations`) names each check's kind, points and action; `base` makes
checks by kind, the built-in ones (`builtin`: personal data found by `recognisers`, deny
and allow patterns, a length limit, the output schema) and those registered beside them.
A `guard.Guard` holds a task's checks and combines their findings into one verdict;
`stream.GuardedStream` holds streamed output back until it has been checked, so that
nothing a check blocks is ever released.
"""
