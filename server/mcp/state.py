"""The `requestState` of an MCP `input_required` result (MCP 2026-07-28): what a task
waits for, sealed by the server's key ring (AGENTD_KEYS, shared by every replica) and
bound to the caller's tenant and principal, so that the client's retry carrying the
answer is understood by any replica and by nobody else."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

from core.errors import FieldViolation, InvalidArgumentError, KeyRequiredError
from core.identity import Principal
from core.keyring import KeyRing, SealedValueError

PURPOSE = "mcp-request-state"
"""The key ring's purpose: a value sealed for another purpose never opens here."""

Kind = Literal["approval", "question"]


@dataclass(frozen=True, slots=True)
class Waiting:
    """A task waiting for a person, as the caller is told it in `requestState`."""

    task_id: str
    kind: Kind
    """An approval of a tool call, or the answer to the agent's question."""
    ref: str
    """The tool call's id (approval) or the question's request id."""
    after: int
    """The task's log position the wait was seen at: the retry follows it from there."""


def _bound(principal: Principal) -> bytes:
    return f"{principal.tenant}\0{principal.id}".encode()


def seal(ring: KeyRing, principal: Principal, waiting: Waiting) -> str | None:
    """The sealed state; None when the ring holds no key (the caller is then told of the
    inbox instead: `server.mcp.waits`)."""
    if not ring.present:
        return None
    plain = json.dumps([waiting.task_id, waiting.kind, waiting.ref, waiting.after])
    return ring.seal(PURPOSE, plain.encode(), _bound(principal), what="MCP request state")


def opened(ring: KeyRing, principal: Principal, sealed: str) -> Waiting:
    """What `seal` sealed for this caller; INVALID_ARGUMENT naming `requestState` when it
    does not open (another caller's, another server's, tampered with, or keys gone)."""
    try:
        plain = ring.open(PURPOSE, sealed, _bound(principal), what="MCP request state")
        task_id, kind, ref, after = json.loads(plain)
    except (SealedValueError, KeyRequiredError, ValueError, TypeError):
        raise InvalidArgumentError(
            [FieldViolation("requestState", "not a request state this server gave you")]
        ) from None
    if kind not in ("approval", "question"):
        raise InvalidArgumentError([FieldViolation("requestState", "unknown kind")])
    return Waiting(str(task_id), kind, str(ref), int(after))
