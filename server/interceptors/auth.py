"""Authentication: every call outside the public methods must carry valid credentials.

The principal found is put in a context variable for the call's handler
(`current_principal`), which `server.calls` turns into the call's
`CallContext`; nothing below the transport reads it. A refused call is
answered UNAUTHENTICATED before its request is even decoded. With auth off
(`AGENTD_AUTH=off`) this interceptor is not installed and every caller is
the anonymous principal of the default tenant.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import Any

import structlog

from auth.authenticator import Authenticator
from core.errors import UnauthenticatedError
from core.identity import ANONYMOUS, Principal
from server.interceptors.wrapping import Around, AroundInterceptor, Context
from server.status import abort

_PRINCIPAL: ContextVar[Principal] = ContextVar("agentd_principal", default=ANONYMOUS)
PUBLIC_METHODS = ("/grpc.health.v1.Health/", "/grpc.reflection.")

UNAUTHENTICATED = Principal(id="unauthenticated", tenant="")
"""Stands for the caller of a refused call in logs and audit records."""
PUBLIC = Principal(id="public", tenant="")
"""The caller of a public method (health, reflection) when auth is on: of no tenant."""


@asynccontextmanager
async def _as_public(request: Any, context: Context) -> AsyncIterator[None]:
    _PRINCIPAL.set(PUBLIC)
    yield


def current_principal() -> Principal:
    """The authenticated caller of the call being served (anonymous with auth off)."""
    return _PRINCIPAL.get()


class AuthInterceptor(AroundInterceptor):
    def __init__(
        self, authenticator: Authenticator, public_methods: Sequence[str] = PUBLIC_METHODS
    ) -> None:
        super().__init__()
        self._authenticator = authenticator
        self._public = tuple(public_methods)

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
        try:
            principal = await self._authenticator.authenticate(metadata)
        except UnauthenticatedError as error:
            _PRINCIPAL.set(UNAUTHENTICATED)
            await abort(context, error)
        _PRINCIPAL.set(principal)
        structlog.contextvars.bind_contextvars(principal=principal.id, tenant=principal.tenant)
        yield
