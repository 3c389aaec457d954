"""Leases: which process runs which task, so that a task outlives the process running it.

Each task a process accepts is listed as active and leased to that process
(its replica id) for a short time, renewed while the process lives. When a
process dies its leases expire; another process (or the same one
restarted) claims the orphaned tasks and resumes them from their last
checkpoint. A process shutting down releases its leases, so another picks
its tasks up at once instead of waiting for the expiry.

A task that waits (for a person, its children, a remote agent, its turn) is parked:
its lease is dropped and it is listed as parked, not active, so no takeover pass claims
it. Whatever ends its wait wakes it: it is active again, unleased, and the first process
to claim it (the one that woke it, when it has room, else any takeover pass) runs it.

`InMemoryLeases` is for one process with an in-process task store: nothing outlives
the process, so nothing is orphaned; only woken tasks are claimed. `RedisLeases`
(stores/leases/redis.py) is what replicas share.
"""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import Collection
from typing import Protocol


def new_replica_id() -> str:
    """Host name, process id and a random suffix: unique across restarts."""
    return f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"


class Leases(Protocol):
    """The leases of one process. Methods are safe to call concurrently."""

    replica: str
    """This process's id, the value of the leases it holds."""
    ttl_seconds: float
    """How long a lease lasts without renewal."""
    shared: bool
    """Whether other processes can take tasks over (False: nothing to renew or claim)."""

    async def acquire(self, tenant: str, task_id: str) -> None:
        """List a new task as active and lease it to this process."""
        ...

    async def renew(self, task_ids: Collection[str]) -> set[str]:
        """Extend this process's leases; returns the ids whose lease it no longer holds."""
        ...

    async def release(self, task_id: str) -> None:
        """Give a still-active task up for another process to claim now (if held)."""
        ...

    async def finish(self, task_id: str) -> None:
        """The task ended: drop its lease (if held) and its active entry."""
        ...

    async def claim_orphans(self, limit: int) -> list[tuple[str, str]]:
        """Claim up to `limit` active tasks whose lease has expired or was released (or
        that were woken); returns their (tenant, task id)."""
        ...

    async def park(self, tenant: str, task_id: str) -> None:
        """The task waits: its lease is dropped and no process claims it until `wake`.
        Nothing changes when another process holds its lease: that one took the task over
        and runs it, so this process's wait is stale."""
        ...

    async def wake(self, task_id: str) -> bool:
        """A parked task may run again: active and unleased, for the first process to
        claim it. True for exactly one of racing callers; False when it was not parked."""
        ...

    async def claim(self, task_id: str) -> bool:
        """Lease an active task no process holds to this one (a task just woken); False
        when another process holds it, or it is not active."""
        ...
