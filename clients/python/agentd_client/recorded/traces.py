"""The trace method of `AgentClient` (a mixin: the client supplies the channel and the
error mapping): GetTaskTrace reads a task's durable trace, page by page."""

from __future__ import annotations

from typing import Any

from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from agentd.v1 import traces_pb2


class TraceMethods:
    _stub: pb_grpc.AgentServiceStub

    async def _unary(self, call: Any, request: Any, timeout: float | None) -> Any:
        raise NotImplementedError  # AgentClient's

    async def get_task_trace(
        self,
        task_id: str,
        *,
        page_size: int = 0,
        page_token: str = "",
        timeout: float | None = None,
    ) -> traces_pb2.GetTaskTraceResponse:
        """A page of task `task_id`'s durable trace (its model calls with the messages
        sent, tool calls with their results, verdicts and decisions; `page_size` 1 to
        500 entries, 0 for 100), the messages its model calls name first, its children's
        ids, and `next_page_token` ("" on the last page). The task's owner reads its own,
        auditors and admins any of the tenant's. Raises TraceNotFoundError when no trace
        of it is kept (none was, another tenant's, or its retention passed)."""
        request = traces_pb2.GetTaskTraceRequest(
            task_id=task_id, page_size=page_size, page_token=page_token
        )
        page: traces_pb2.GetTaskTraceResponse = await self._unary(
            self._stub.GetTaskTrace, request, timeout
        )
        return page
