"""agentd's errors as A2A's, written once: a task not found is A2A's TaskNotFoundError, a
bad request its InvalidParamsError (with the field violations); every other agentd error
keeps agentd's own rich status on gRPC (its code: permission, rate limit, unavailable ...),
which the A2A client raises as its generic error with that code; on JSON-RPC it is an
internal error (-32603) whose message starts with agentd's reason."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

import structlog
from a2a.utils import errors as a2a_errors

from core import errors
from core.faults import as_store_error
from core.identity import new_trace_id

log = structlog.get_logger(__name__)

F = TypeVar("F", bound=Callable[..., Any])


class AgentdStatusError(a2a_errors.A2AError):
    """An agentd error with no A2A counterpart: answered with agentd's own status."""

    def __init__(self, error: errors.AgentdError) -> None:
        super().__init__(f"{error.reason}: {error.message}", data={"reason": error.reason})
        self.error = error


def to_a2a(exc: Exception) -> a2a_errors.A2AError:
    """The A2A error `exc` is answered with."""
    if isinstance(exc, a2a_errors.A2AError):
        return exc
    if isinstance(exc, errors.TaskNotFoundError):
        return a2a_errors.TaskNotFoundError(exc.message)
    if isinstance(exc, errors.InvalidArgumentError):
        details = [{"field": v.field, "message": v.description} for v in exc.violations]
        return a2a_errors.InvalidParamsError(exc.message, data={"errors": details})
    if isinstance(exc, errors.AgentdError):
        return AgentdStatusError(exc)
    fault = as_store_error(exc)
    if fault is not None:
        return AgentdStatusError(fault)
    trace_id = new_trace_id()
    log.error("unexpected error in an A2A call", trace_id=trace_id, exc_info=exc)
    return a2a_errors.InternalError(f"internal error (trace id {trace_id})")


def translated(method: F) -> F:
    """Raise what `method` raises as `to_a2a` says (coroutines and async generators)."""
    if inspect.isasyncgenfunction(method):

        @functools.wraps(method)
        async def stream(*args: Any, **kwargs: Any) -> Any:
            items = method(*args, **kwargs)
            try:
                async for item in items:
                    yield item
            except Exception as exc:
                raise to_a2a(exc) from exc
            finally:
                await items.aclose()

        return stream  # type: ignore[return-value]

    @functools.wraps(method)
    async def unary(*args: Any, **kwargs: Any) -> Any:
        try:
            return await method(*args, **kwargs)
        except Exception as exc:
            raise to_a2a(exc) from exc

    return unary  # type: ignore[return-value]
