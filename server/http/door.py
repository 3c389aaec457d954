"""What a front door on the HTTP address is (A2A's, MCP's, the OpenAI-compatible one's),
and what the address's guard promises each of them.

The guard runs before a door's routes: a request that reaches one has been
authenticated (an agentd API key or a JWT as `authorization: Bearer`; 401 before it
otherwise), its body is within AGENTD_HTTP_MAX_BODY_BYTES (413 before it otherwise),
and the caller's rate limits took a token for the door's name of the call (429 before
it otherwise). The call's principal and trace are on the request (`call_of`). After the
answer (for a stream: once it starts) the guard writes one RPC audit record, method
`/<door's service>/<the door's name of the call>`, with the code and task id the door
put on the request (`audited`), else OK or the HTTP status's code. A door calls the
engine and conversation services, never a store.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import Protocol, TypeVar

from starlette.requests import Request
from starlette.routing import BaseRoute

from core.identity import CallContext

CALL = "agentd_call"
"""The request state's key of the caller's CallContext (set by the guard)."""
OUTCOME = "agentd_outcome"
"""The request state's key of the call's audit code and task id (set by the door)."""
PUBLIC = "agentd_public"
"""The attribute `public` marks a route with."""
SIGNED = "agentd_signed"
"""The attribute `signed` marks a route with."""

R = TypeVar("R", bound=BaseRoute)


class Door(Protocol):
    name: str
    """a2a, mcp or openai: its switch in AGENTD_HTTP_DOORS."""
    service: str
    """Its calls' service in the RPC audit (`lf.a2a.v1.A2AService`, `mcp`, `openai.v1`)."""

    def routes(self) -> Sequence[BaseRoute]:
        """Its routes, with their full paths (`/mcp`, `/v1/responses`, ...)."""
        ...

    def method_of(self, request: Request, body: bytes) -> str:
        """The door's name of the call: what rate limits count it under (a call that
        starts a task under `Execute`'s buckets) and the audit names it. The body is
        within the limit; it may be malformed (then a name like "invalid")."""
        ...

    def running(self) -> AbstractAsyncContextManager[None]:
        """What the door runs while the address serves (entered before it listens,
        left when it stops)."""
        ...

    def starts_task(self, method: str) -> bool:
        """Whether a call of `method` starts a task (counted under Execute's rate)."""
        ...


def call_of(request: Request) -> CallContext:
    """The caller, as the guard authenticated it."""
    call: CallContext = getattr(request.state, CALL)
    return call


def audited(request: Request, code: str, task_id: str = "") -> None:
    """What the call's audit record says of it: its code (`OK`, `INVALID_ARGUMENT`, ...,
    as gRPC names them) and the task it started or named."""
    setattr(request.state, OUTCOME, (code, task_id))


def public(route: R) -> R:
    """Mark `route` as served to anyone (A2A's public agent cards): the guard asks no
    credentials for it (its call is the anonymous principal's with auth off, else one of
    no tenant, `public`), takes no rate-limit token and writes no audit record; the body
    limit still holds."""
    setattr(route, PUBLIC, True)
    return route


def is_public(route: BaseRoute) -> bool:
    return getattr(route, PUBLIC, False) is True


def signed(route: R) -> R:
    """Mark `route` as one whose requests carry their own credentials (a trigger's
    delivery, signed with the trigger's secret, which the door verifies): the guard asks
    no API key or JWT for it, but keeps the body limit, takes the rate-limit token (the
    caller is `sender:<route template>@<client address>`, of a tenant of that name: one
    address's flood empties only its own buckets, never those of another route, address
    or tenant, and made-up ids in the path mint no new ones) and writes the audit
    record."""
    setattr(route, SIGNED, True)
    return route


def is_signed(route: BaseRoute) -> bool:
    return getattr(route, SIGNED, False) is True


def jsonrpc_method(body: bytes) -> str | None:
    """The method a JSON-RPC request body names (cut to 64 characters); None when it is
    not JSON, is nested past what can be parsed, or names no method."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return None
    method = data.get("method") if isinstance(data, dict) else None
    return method[:64] if isinstance(method, str) and method else None
