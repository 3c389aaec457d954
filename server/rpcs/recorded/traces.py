"""GetTaskTrace: a task's durable trace, page by page (`server.services.recorded.traces`)."""

from __future__ import annotations

from typing import ClassVar

from agentd.v1 import traces_pb2
from core.identity import CallContext
from server.calls import unary
from server.convert import pages
from server.convert.recorded import traces as convert
from server.interceptors.audit import note_task
from server.rpcs.common import required_id
from server.services.recorded.traces import TraceService


class TraceRpcs:
    RPCS: ClassVar[tuple[str, ...]] = ("GetTaskTrace",)

    def __init__(self, traces: TraceService) -> None:
        self._traces = traces

    @unary
    async def GetTaskTrace(  # noqa: N802 - gRPC method name
        self, request: traces_pb2.GetTaskTraceRequest, call: CallContext
    ) -> traces_pb2.GetTaskTraceResponse:
        task_id = required_id(request.task_id, "task_id")
        limit = pages.page_size(request.page_size, convert.DEFAULT_PAGE, convert.MAX_PAGE)
        after = convert.after(request.page_token)
        note_task(task_id)
        view = await self._traces.read(call.principal, task_id, after, limit)
        return convert.trace_to_proto(task_id, view.head, view.page, view.children)
