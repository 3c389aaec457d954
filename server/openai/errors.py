"""agentd's errors as OpenAI's, written once: `{"error": {"message", "type", "param",
"code"}}` with the HTTP status of the error's gRPC code (`server.status`, the one table).
A field violation's field is the `param`, named as the OpenAI request names it."""

from __future__ import annotations

from typing import Any

import grpc
import structlog
from starlette.responses import JSONResponse

from core import errors
from core.faults import as_store_error
from core.identity import new_trace_id
from server.status import status_code_for

log = structlog.get_logger(__name__)

HTTP_STATUS: dict[grpc.StatusCode, int] = {
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.OUT_OF_RANGE: 400,
    grpc.StatusCode.UNAUTHENTICATED: 401,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.FAILED_PRECONDITION: 409,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.UNIMPLEMENTED: 501,
    grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504,
}
"""A gRPC code's HTTP status (anything else: 500)."""

TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error"}
TYPES |= {404: "not_found_error", 409: "conflict_error", 429: "rate_limit_error"}

RENAMED = {"agent": "model", "task": "input", "conversation_id": "conversation"}
"""The engine's names of a request's fields, as the OpenAI request names them."""


def invalid(param: str, problem: str) -> errors.InvalidArgumentError:
    """A malformed request: `param` (as OpenAI names it) and what is wrong with it."""
    return errors.InvalidArgumentError([errors.FieldViolation(param, problem)])


def outcome_of(exc: Exception) -> tuple[errors.AgentdError, grpc.StatusCode]:
    """The agentd error `exc` is answered as, and its gRPC code (for the audit)."""
    error: errors.AgentdError | None
    error = exc if isinstance(exc, errors.AgentdError) else as_store_error(exc)
    if error is None:
        trace_id = new_trace_id()
        log.error("unexpected error in an OpenAI call", trace_id=trace_id, exc_info=exc)
        error = errors.InternalError(f"internal error (trace id {trace_id})")
    return error, status_code_for(error)


def error_body(error: errors.AgentdError, status: int) -> dict[str, Any]:
    violations = error.field_violations
    param = RENAMED.get(violations[0].field, violations[0].field) if violations else None
    message = error.message
    if violations:
        message = "; ".join(f"{RENAMED.get(v.field, v.field)}: {v.description}" for v in violations)
    return {
        "error": {
            "message": message,
            "type": TYPES.get(status, "server_error"),
            "param": param,
            "code": error.reason.lower(),
        }
    }


def error_response(exc: Exception) -> tuple[JSONResponse, str]:
    """The answer to a call that raised `exc`, and its audit code."""
    error, code = outcome_of(exc)
    status = HTTP_STATUS.get(code, 500)
    headers = {}
    if error.retry_after_seconds is not None:
        headers["retry-after"] = str(max(1, round(error.retry_after_seconds)))
    return JSONResponse(error_body(error, status), status, headers), code.name
