"""What the audit log keeps of each RPC, and how records are asked for."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class RpcRecord:
    """One RPC served (a stream: when it ended)."""

    time: datetime
    principal_id: str
    """Who called; "unauthenticated" when credentials were refused."""
    tenant: str
    method: str
    code: str
    """The final status code's name: OK, NOT_FOUND, ..."""
    duration_seconds: float
    trace_id: str
    request_digest: str
    """SHA-256 of the request message as received; empty for streamed requests."""
    task_id: str = ""
    via: str = ""
    """The gateway that called on the principal's behalf, if one did."""
