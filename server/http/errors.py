"""agentd's errors as HTTP answers, and HTTP statuses as the gRPC code names the RPC audit
uses: written once for every door of the HTTP address.

An error's body is Google's JSON form of `google.rpc.Status` (as Google's HTTP APIs
answer): `{"error": {"code": <HTTP status>, "status": "<gRPC code>", "message": ...,
"details": [ErrorInfo(reason, domain="agentd"), BadRequest, RetryInfo ...]}}`, the same
details a gRPC caller gets (`server.status.rich_status`).
"""

from __future__ import annotations

import math
from typing import Any

import grpc
from google.protobuf.json_format import MessageToDict
from starlette.responses import JSONResponse

from core import errors
from server.status import rich_status, status_code_for

HTTP_STATUS: dict[grpc.StatusCode, int] = {
    grpc.StatusCode.OK: 200,
    grpc.StatusCode.CANCELLED: 499,
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.FAILED_PRECONDITION: 400,
    grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.OUT_OF_RANGE: 400,
    grpc.StatusCode.UNIMPLEMENTED: 501,
    grpc.StatusCode.INTERNAL: 500,
    grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DATA_LOSS: 500,
    grpc.StatusCode.UNAUTHENTICATED: 401,
}
"""gRPC codes as HTTP statuses (google.rpc.Code's own mapping)."""

CODE_NAMES: dict[int, str] = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    405: "UNIMPLEMENTED",
    409: "ABORTED",
    413: "INVALID_ARGUMENT",
    415: "INVALID_ARGUMENT",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    501: "UNIMPLEMENTED",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}
"""HTTP statuses as the code names audit records use (other 2xx and 3xx: OK; other 4xx:
FAILED_PRECONDITION; other 5xx: INTERNAL)."""


def code_name(status: int) -> str:
    """The audit's code of an answer of HTTP `status` whose door said none."""
    if status < 400:
        return "OK"
    return CODE_NAMES.get(status, "FAILED_PRECONDITION" if status < 500 else "INTERNAL")


def http_status(error: errors.AgentdError) -> int:
    """The HTTP status of `error`: its gRPC code's, but 413 for a request too large and
    415 for a body neither JSON nor text."""
    if isinstance(error, errors.RequestTooLargeError):
        return 413
    if isinstance(error, errors.BodyNotTextError):
        return 415
    return HTTP_STATUS.get(status_code_for(error), 500)


def error_body(error: errors.AgentdError, http: int | None = None) -> dict[str, Any]:
    """Google's JSON form of `error`'s rich status, with its HTTP status (`http`, else
    `http_status`'s) as `code`."""
    code, status = rich_status(error)
    details: list[Any] = MessageToDict(status).get("details", [])
    return {
        "error": {
            "code": http if http is not None else http_status(error),
            "status": code.name,
            "message": error.message,
            "details": details,
        }
    }


def error_response(
    error: errors.AgentdError, headers: dict[str, str] | None = None
) -> JSONResponse:
    """`error` answered: its status and body; `retry-after` (whole seconds, at least 1)
    when it says when to retry, `www-authenticate: Bearer` when credentials are wanted."""
    extra = dict(headers or {})
    if error.retry_after_seconds is not None:
        extra["retry-after"] = str(max(1, math.ceil(error.retry_after_seconds)))
    if isinstance(error, errors.UnauthenticatedError):
        extra["www-authenticate"] = "Bearer"
    status = http_status(error)
    return JSONResponse(error_body(error, status), status_code=status, headers=extra)
