"""The inbox methods of `AgentClient`: what tasks of your tenant wait for you to do, and what
became of each such action (a mixin: the client supplies the channel and the error
mapping). Answer an action with the task methods: `approve_tool_call` (an approval, or a
budget's: `call_id` is the action's `request_id`), `provide_input` (a question) or
`resume_task` (a resume)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from agentd.v1 import inbox_pb2

PendingKind = Literal["approval", "question", "resume", "budget"]
PENDING_KINDS: Mapping[PendingKind, inbox_pb2.PendingActionKind.ValueType] = {
    "approval": inbox_pb2.PENDING_ACTION_KIND_APPROVAL,
    "question": inbox_pb2.PENDING_ACTION_KIND_QUESTION,
    "resume": inbox_pb2.PENDING_ACTION_KIND_RESUME,
    "budget": inbox_pb2.PENDING_ACTION_KIND_BUDGET,
}


def pending_actions_request(
    kinds: Sequence[PendingKind],
    agent: str,
    root_task_id: str,
    page_size: int,
    page_token: str,
) -> inbox_pb2.ListPendingActionsRequest:
    return inbox_pb2.ListPendingActionsRequest(
        kinds=[PENDING_KINDS[kind] for kind in kinds],
        agent=agent,
        root_task_id=root_task_id,
        page_size=page_size,
        page_token=page_token,
    )


def action_history_request(
    task_id: str, root_task_id: str, page_size: int, page_token: str
) -> inbox_pb2.ListActionHistoryRequest:
    return inbox_pb2.ListActionHistoryRequest(
        task_id=task_id, root_task_id=root_task_id, page_size=page_size, page_token=page_token
    )


class InboxMethods:
    _stub: pb_grpc.AgentServiceStub

    async def _unary(self, call: Any, request: Any, timeout: float | None) -> Any:
        raise NotImplementedError  # AgentClient's

    async def list_pending_actions(
        self,
        *,
        kinds: Sequence[PendingKind] = (),
        agent: str = "",
        root_task_id: str = "",
        page_size: int = 0,
        page_token: str = "",
        timeout: float | None = None,
    ) -> inbox_pb2.ListPendingActionsResponse:
        """One page of what tasks of your tenant wait for you to do (only what you may
        answer), oldest first; pass `next_page_token` back for the next. Filters: `kinds`,
        the `agent` a task runs as (`id` or `id@version`), the tree under `root_task_id`."""
        request = pending_actions_request(kinds, agent, root_task_id, page_size, page_token)
        listed: inbox_pb2.ListPendingActionsResponse = await self._unary(
            self._stub.ListPendingActions, request, timeout
        )
        return listed

    async def list_action_history(
        self,
        *,
        task_id: str = "",
        root_task_id: str = "",
        page_size: int = 0,
        page_token: str = "",
        timeout: float | None = None,
    ) -> inbox_pb2.ListActionHistoryResponse:
        """One page of the inbox's history, oldest first: each action opened, reminded,
        escalated, answered (by whom, how) or timed out (and what the deadline did); pass
        `next_page_token` back for the next. Of one task (`task_id`), one task tree
        (`root_task_id`) or, with an approver or auditor role, the whole tenant."""
        request = action_history_request(task_id, root_task_id, page_size, page_token)
        listed: inbox_pb2.ListActionHistoryResponse = await self._unary(
            self._stub.ListActionHistory, request, timeout
        )
        return listed
