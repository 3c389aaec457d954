"""The inbox methods of the synchronous `AgentClient` (a mixin, as in the async client)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from agentd.v1 import inbox_pb2
from agentd_client.inbox import PendingKind, action_history_request, pending_actions_request


class SyncInboxMethods:
    _stub: pb_grpc.AgentServiceStub

    def _unary(self, call: Any, request: Any, timeout: float | None) -> Any:
        raise NotImplementedError  # AgentClient's

    def list_pending_actions(
        self,
        *,
        kinds: Sequence[PendingKind] = (),
        agent: str = "",
        root_task_id: str = "",
        page_size: int = 0,
        page_token: str = "",
        timeout: float | None = None,
    ) -> inbox_pb2.ListPendingActionsResponse:
        """One page of what tasks of your tenant wait for you to do, oldest first."""
        request = pending_actions_request(kinds, agent, root_task_id, page_size, page_token)
        listed: inbox_pb2.ListPendingActionsResponse = self._unary(
            self._stub.ListPendingActions, request, timeout
        )
        return listed

    def list_action_history(
        self,
        *,
        task_id: str = "",
        root_task_id: str = "",
        page_size: int = 0,
        page_token: str = "",
        timeout: float | None = None,
    ) -> inbox_pb2.ListActionHistoryResponse:
        """One page of the inbox's history (of a task, a task tree, or the tenant), oldest
        first."""
        request = action_history_request(task_id, root_task_id, page_size, page_token)
        listed: inbox_pb2.ListActionHistoryResponse = self._unary(
            self._stub.ListActionHistory, request, timeout
        )
        return listed
