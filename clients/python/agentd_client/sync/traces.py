"""The trace method of the synchronous `AgentClient` (a mixin, as in the async client)."""

from __future__ import annotations

from typing import Any

from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from agentd.v1 import traces_pb2


class SyncTraceMethods:
    _stub: pb_grpc.AgentServiceStub

    def _unary(self, call: Any, request: Any, timeout: float | None) -> Any:
        raise NotImplementedError  # AgentClient's

    def get_task_trace(
        self,
        task_id: str,
        *,
        page_size: int = 0,
        page_token: str = "",
        timeout: float | None = None,
    ) -> traces_pb2.GetTaskTraceResponse:
        """As the async client's `get_task_trace`."""
        request = traces_pb2.GetTaskTraceRequest(
            task_id=task_id, page_size=page_size, page_token=page_token
        )
        page: traces_pb2.GetTaskTraceResponse = self._unary(
            self._stub.GetTaskTrace, request, timeout
        )
        return page
