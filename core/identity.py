"""Who is calling, and the trace the call belongs to.

The transport builds a `CallContext` for each RPC and hands it down
explicitly; nothing below the transport reads gRPC metadata.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Principal:
    """An authenticated (or anonymous) caller."""

    id: str
    """Stable identifier of the caller, e.g. a service account name."""
    tenant: str
    """The tenant whose data the caller may see."""
    roles: tuple[str, ...] = ()
    """Roles granted to the caller."""
    via: str = ""
    """The gateway that asserted this caller's identity (`auth.delegation`); empty when
    the caller authenticated itself."""


ANONYMOUS = Principal(id="anonymous", tenant="default")


def new_trace_id() -> str:
    """A random W3C trace id: 32 lowercase hex digits, never all zero."""
    while True:
        trace_id = secrets.token_hex(16)
        if trace_id != "0" * 32:
            return trace_id


@dataclass(frozen=True, slots=True)
class CallContext:
    """What every layer needs to know about the call it serves."""

    principal: Principal = ANONYMOUS
    """The caller."""
    trace_id: str = field(default_factory=new_trace_id)
    """W3C trace id of the call."""
    deadline_seconds: float | None = None
    """Seconds left before the caller's deadline, when it set one."""
    task_id: str = ""
    """The task the call is made for, if any (for audit records)."""
    artifact_space: str = ""
    """Where the artifacts of the task's tree live (its root task's id, set by the engine:
    `agent.running.artifacts.artifact_space`); empty outside a task."""
    parent_task_id: str = ""
    """For a child task's call: its parent task (`agent.teams`)."""
    root_task_id: str = ""
    """For a task's call: the top task of its tree."""
    check_argument: Callable[[str, Any], None] | None = field(default=None, compare=False)
    """Set by the tool registry for a running tool call: checks a value an argument takes
    on during the call (a redirect's URL) against the caller's grants, as the call's own
    arguments were; raises PermissionDeniedError when they do not allow it."""
