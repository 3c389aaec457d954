"""What a front door on the HTTP address is (A2A's, MCP's, the OpenAI-compatible one's),
and what the address's guard promises each of them.

The guard runs before a door's routes: a request that reaches one has been
authenticated (an agentd API key or a JWT as `authorization: Bearer`; 401 before it
otherwise), its body is within AGENTD_HTTP_MAX_BODY_BYTES (413 before it otherwise),
and the caller's rate limits took a token for the door's name of the call (429 before
it otherwise). The call's principal and trace are on the request (`call_of`). After the
answer (for a stream: once it starts) the guard writes one RPC audit record, method
`/<door's service>/<the door's name of the call>`, with the code and task id the door
put on the request (`audited`), else OK or the HTTP status's code. A `signed` route
is the exception: no credentials are asked, and its door takes the rate-limit token
(`limited`). A door calls the engine and conversation services, never a store.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Protocol, TypeVar

from starlette.requests import Request
from starlette.routing import BaseRoute

from core.errors import AgentdError
from core.identity import CallContext, Principal

CALL = "agentd_call"
"""The request state's key of the caller's CallContext (set by the guard)."""
OUTCOME = "agentd_outcome"
"""The request state's key of the call's audit code and task id (set by the door)."""
PUBLIC = "agentd_public"
"""The attribute `public` marks a route with."""
SIGNED = "agentd_signed"
"""The attribute `signed` marks a route with."""
LIMIT = "agentd_limit"
"""The request state's key of a signed call's `Limit` (set by the guard)."""

Limit = Callable[[Principal | None], Awaitable[AgentdError | None]]
"""Takes a signed call's rate-limit token (`limited`)."""

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
    no API key or JWT for it, but keeps the body limit and writes the audit record. It
    takes no rate-limit token itself: the door does (`limited`), once it knows whose call
    it is, since the client address is no sender's identity (behind a load balancer it is
    the balancer's for everyone). The caller until then is `sender:<route template>@<client
    address>`, of a tenant of that name."""
    setattr(route, SIGNED, True)
    return route


async def limited(request: Request, principal: Principal | None = None) -> AgentdError | None:
    """For a call of a signed route, exactly once: take its rate-limit token (Execute's
    for a call that starts a task) from `principal`'s buckets (the trigger's, of its
    tenant, once it is known and its signature verifies), who the call's context and
    audit record then name; with None, from the refusals' buckets of the route and the
    client address (an unknown id, a bad signature: junk is throttled by address, and
    made-up ids mint no buckets, without touching a real sender's). The refusal (429, or
    a store out of reach) when a bucket is empty, else None."""
    limit: Limit = getattr(request.state, LIMIT)
    return await limit(principal)


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
