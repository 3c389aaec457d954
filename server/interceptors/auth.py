"""Authentication: every call outside the public methods must carry valid credentials.

The principal found is put in a context variable for the call's handler
(`current_principal`), which `server.calls` turns into the call's
`CallContext`; nothing below the transport reads it. A refused call is
answered UNAUTHENTICATED before its request is even decoded. With auth off
(`AGENTD_AUTH=off`) this interceptor is not installed and every caller is
the anonymous principal of the default tenant.

An address whose credentials were refused too often (`auth.throttle`) is
answered RESOURCE_EXHAUSTED before anything is looked up, and such calls
leave no audit record each (principal THROTTLED): a log line per address
and window says how many there were.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import Any

import structlog

from auth.authenticator import Authenticator
from auth.delegation import acting_for
from auth.throttle import FailureThrottle, peer_address
from core.errors import AgentdError, RateLimitedError, UnauthenticatedError
from core.identity import ANONYMOUS, Principal
from server.interceptors.wrapping import Around, AroundInterceptor, Context
from server.status import abort

log = structlog.get_logger(__name__)
_PRINCIPAL: ContextVar[Principal] = ContextVar("agentd_principal", default=ANONYMOUS)
PUBLIC_METHODS = ("/grpc.health.v1.Health/", "/grpc.reflection.")

UNAUTHENTICATED = Principal(id="unauthenticated", tenant="")
"""Stands for the caller of a refused call in logs and audit records."""
PUBLIC = Principal(id="public", tenant="")
"""The caller of a public method (health, reflection) when auth is on: of no tenant."""
THROTTLED = Principal(id="throttled", tenant="")
"""The caller of a call refused by the failure throttle: not audited call by call."""


@asynccontextmanager
async def _as_public(request: Any, context: Context) -> AsyncIterator[None]:
    _PRINCIPAL.set(PUBLIC)
    yield


def current_principal() -> Principal:
    """The authenticated caller of the call being served (anonymous with auth off)."""
    return _PRINCIPAL.get()


async def _acting_for(
    principal: Principal, context: Context, gateway_roles: Sequence[str]
) -> Principal:
    """Whom the call is for (`auth.delegation`); the call is refused if that cannot be."""
    try:
        return acting_for(principal, context.invocation_metadata(), gateway_roles)
    except AgentdError as error:
        await abort(context, error)


class AnonymousInterceptor(AroundInterceptor):
    """With auth off: every caller is the anonymous principal of the default tenant,
    holding `roles` (so that someone can approve tool calls on a development server)."""

    def __init__(self, roles: Sequence[str], gateway_roles: Sequence[str] = ()) -> None:
        super().__init__()
        self._principal = Principal(ANONYMOUS.id, ANONYMOUS.tenant, tuple(roles))
        self._gateway_roles = tuple(gateway_roles)

    def around_for(self, method: str) -> Around | None:
        return self._anonymous if self._principal.roles else None

    @asynccontextmanager
    async def _anonymous(self, request: Any, context: Context) -> AsyncIterator[None]:
        _PRINCIPAL.set(await _acting_for(self._principal, context, self._gateway_roles))
        yield


class AuthInterceptor(AroundInterceptor):
    def __init__(
        self,
        authenticator: Authenticator,
        public_methods: Sequence[str] = PUBLIC_METHODS,
        throttle: FailureThrottle | None = None,
        gateway_roles: Sequence[str] = ("gateway",),
    ) -> None:
        super().__init__()
        self._gateway_roles = tuple(gateway_roles)
        self._authenticator = authenticator
        self._public = tuple(public_methods)
        self._throttle = throttle
        self._throttled: dict[str, int] = {}

    def around_for(self, method: str) -> Around:
        if self._public and method.startswith(self._public):
            return _as_public
        return self._authenticated

    @asynccontextmanager
    async def _authenticated(self, request: Any, context: Context) -> AsyncIterator[None]:
        # Runs in the handler's own task, so the principal holds for the whole call (and
        # the interceptors around this one see it when the call ends); before the request
        # is decoded, so a refused call is never decoded.
        metadata: Any = context.invocation_metadata()
        peer = peer_address(context.peer()) if self._throttle is not None else ""
        wait = self._throttle.wait(peer) if self._throttle is not None else 0.0
        if wait > 0:
            principal = self._authenticator.known(metadata)
            if principal is None:
                _PRINCIPAL.set(THROTTLED)
                self._note_throttled(peer)
                await abort(
                    context,
                    RateLimitedError(
                        "too many refused credentials from this address; "
                        f"retry in {math.ceil(wait)} s",
                        retry_after_seconds=round(wait, 3),
                    ),
                )
        else:
            try:
                principal = await self._authenticator.authenticate(metadata)
            except UnauthenticatedError as error:
                _PRINCIPAL.set(UNAUTHENTICATED)
                if self._throttle is not None:
                    self._throttle.refused(peer)
                await abort(context, error)
        _PRINCIPAL.set(principal)  # the caller of record, should the next step refuse
        principal = await _acting_for(principal, context, self._gateway_roles)
        _PRINCIPAL.set(principal)
        structlog.contextvars.bind_contextvars(principal=principal.id, tenant=principal.tenant)
        if principal.via:
            structlog.contextvars.bind_contextvars(via=principal.via)
        yield

    def _note_throttled(self, peer: str) -> None:
        count = self._throttled.get(peer, 0) + 1
        self._throttled[peer] = count
        if count == 1 or count % 1000 == 0:  # one line when it starts, then one per 1,000
            log.warning(
                "refusing calls from an address with too many bad credentials",
                peer=peer,
                refused=count,
            )
        if len(self._throttled) > 10_000:
            self._throttled.clear()
