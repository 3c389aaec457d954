"""What a run's durable trace is kept with (`records.traces`): the store, the key of
the tool calls' argument hashes, and the caps. The engine's recorder (which writes every
model call, tool call, critic verdict and decision of a run to the store, beside the run)
and a replay (which answers a rerun's tool calls from a recorded trace) both work
from it."""

from __future__ import annotations

from dataclasses import dataclass

from stores.traces.base import TraceStore

DEFAULT_ARGUMENTS_KEY = b"agentd trace arguments v1"
"""The arguments' hash key when the server holds no key ring (AGENTD_KEYS): equal
calls still match, but a guessed secret can be checked against a kept hash."""


@dataclass(frozen=True, slots=True)
class Traces:
    store: TraceStore
    arguments_key: bytes = DEFAULT_ARGUMENTS_KEY
    """The HMAC key of `records.traces.model.arguments_key` (derived from the key ring
    when the server has one: every replica the same)."""
    max_record_bytes: int = 65_536
    """A message's content, a reply, a tool result beyond this is cut (and marked)."""
    max_task_bytes: int = 16_777_216
    """A task's trace beyond this is not kept (the trace marked cut)."""
