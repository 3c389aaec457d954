"""A ListTasks request as the query the engine lists tasks with."""

from __future__ import annotations

from agentd.v1 import agent_service_pb2 as pb
from core.errors import FieldViolation, InvalidArgumentError
from core.identity import Principal
from records.agents.definition import split_reference
from records.conversations.model import conversation_id_problem
from records.tasks import TaskQuery
from server.convert import pages
from server.convert import tasks as convert


def task_query(request: pb.ListTasksRequest, principal: Principal, limit: int) -> TaskQuery:
    """The caller's tasks `request` asks for, a page of `limit` after its page token;
    InvalidArgumentError naming each malformed field."""
    agent, version, conversation = _runs_as(request)
    return TaskQuery(
        tenant=principal.tenant,
        owner=principal.id,
        statuses=convert.statuses_from_proto(request.statuses),
        created_after=convert.timestamp_from_proto(request.created_after, "created_after")
        if request.HasField("created_after")
        else None,
        created_before=convert.timestamp_from_proto(request.created_before, "created_before")
        if request.HasField("created_before")
        else None,
        limit=limit,
        after=pages.time_cursor(request.page_token),
        labels=convert.label_filter(request.labels),
        agent=agent,
        agent_version=version,
        conversation_id=conversation,
        parent_task_id=_parent(request.parent_task_id),
    )


def _parent(task_id: str) -> str:
    if task_id and (len(task_id) > 64 or not task_id.isprintable()):
        problem = "is not a task id"
        raise InvalidArgumentError([FieldViolation("parent_task_id", problem)])
    return task_id


def _runs_as(request: pb.ListTasksRequest) -> tuple[str, int | None, str]:
    """The agent id, its version and the conversation to filter by ("", None, "": any)."""
    violations: list[FieldViolation] = []
    agent, version = "", None
    if request.agent:
        try:
            agent, version = split_reference(request.agent)
        except ValueError as bad:
            violations.append(FieldViolation("agent", str(bad)))
    conversation = request.conversation_id
    if conversation and (problem := conversation_id_problem(conversation)) is not None:
        violations.append(FieldViolation("conversation_id", problem))
    if violations:
        raise InvalidArgumentError(violations)
    return agent, version, conversation
