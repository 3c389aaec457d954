"""The door of inbound triggers (`triggers` in AGENTD_HTTP_DOORS): `POST
/v1/triggers/<trigger id>`, a delivery signed the Standard Webhooks way with the
trigger's secret, answered 202 `{"task_id": ...}` (docs/triggers.md).

Its route is `signed` (`server.http.door`): the guard asks no API key of a sender (a
delivery's credentials are its signature) but keeps the body limit and the audit
record. The signature is checked over the raw body before the body is parsed
(`TriggerDeliveries`), and only then is the rate-limit token taken (under Execute's),
from the trigger's buckets (`trigger:<id>`, of its tenant): the client address is the
load balancer's for every sender, so no flood of junk can empty a real sender's. A
refusal (an unknown id, a bad signature) takes from the buckets of the route and the
client address instead, and is answered 429 once they are empty.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager

import structlog
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from core.errors import AgentdError, InternalError, TriggerNotFoundError, TriggerSignatureError
from server.http.door import audited, call_of, limited, signed
from server.http.errors import error_response
from server.services.triggers.deliveries import Delivered, Delivery, TriggerDeliveries
from server.status import status_code_for

log = structlog.get_logger(__name__)

SERVICE = "agentd.v1.TriggerService"
METHOD = "DeliverTrigger"
"""The call's name in rate limits and the audit."""


class TriggerDoor:
    """The Door (`server.http.door.Door`) of signed trigger deliveries."""

    name = "triggers"
    service = SERVICE

    def __init__(self, deliveries: TriggerDeliveries) -> None:
        self._deliveries = deliveries

    def routes(self) -> Sequence[BaseRoute]:
        return [signed(Route("/v1/triggers/{trigger_id}", self._deliver, methods=["POST"]))]

    async def _deliver(self, request: Request) -> Response:
        body = await request.body()
        delivery = Delivery(
            trigger_id=request.path_params["trigger_id"],
            headers={name.lower(): value for name, value in request.headers.items()},
            body=body,
            trace_id=call_of(request).trace_id,
        )
        try:
            delivered = await self._delivered(request, delivery)
        except AgentdError as error:
            audited(request, status_code_for(error).name)
            return error_response(error)
        except Exception as error:
            log.error("trigger delivery failed", trace_id=delivery.trace_id, exc_info=error)
            failure = InternalError(delivery.trace_id)
            audited(request, status_code_for(failure).name)
            return error_response(failure)
        audited(request, "OK", delivered.task_id)
        return JSONResponse({"task_id": delivered.task_id}, status_code=202)

    async def _delivered(self, request: Request, delivery: Delivery) -> Delivered:
        """The delivery verified, its token taken from its trigger's buckets, its task
        started; a refusal's token taken from the address's (429 once they are empty)."""
        try:
            verified = await self._deliveries.verified(delivery)
        except (TriggerNotFoundError, TriggerSignatureError) as error:
            throttled = await limited(request)  # the refusals' bucket of the address
            raise throttled or error from None
        throttled = await limited(request, verified.sender)
        if throttled is not None:
            raise throttled
        return await self._deliveries.start(verified)

    def method_of(self, request: Request, body: bytes) -> str:
        return METHOD if request.url.path.startswith("/v1/triggers/") else "invalid"

    def running(self) -> AbstractAsyncContextManager[None]:
        return _nothing()

    def starts_task(self, method: str) -> bool:
        return method == METHOD


@contextlib.asynccontextmanager
async def _nothing() -> AsyncIterator[None]:
    yield
