"""Conversion of the events of agents working together (`agent.teams`) to protobuf."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from google.protobuf.message import Message

from agentd.v1 import events_pb2
from records import events as ev
from server.convert.tasks import stop_reason_to_proto, task_status_to_proto, usage_to_proto


def _subtask_started(p: ev.SubtaskStarted) -> events_pb2.SubtaskStarted:
    return events_pb2.SubtaskStarted(
        child_task_id=p.child_task_id,
        agent=p.agent,
        task=p.task,
        call_id=p.call_id,
        panel=p.panel,
    )


def _subtask_finished(p: ev.SubtaskFinished) -> events_pb2.SubtaskFinished:
    return events_pb2.SubtaskFinished(
        child_task_id=p.child_task_id,
        agent=p.agent,
        status=task_status_to_proto(p.status),
        answer=p.answer,
        error=p.error,
        usage=usage_to_proto(p.usage),
        stop_reason=stop_reason_to_proto(p.stop_reason),
    )


def _subtask_waiting(p: ev.SubtaskWaiting) -> events_pb2.SubtaskWaiting:
    return events_pb2.SubtaskWaiting(
        child_task_id=p.child_task_id, kind=p.kind, request_id=p.request_id, detail=p.detail
    )


def _panel_vote(p: ev.PanelVote) -> events_pb2.PanelVote:
    return events_pb2.PanelVote(
        panel=p.panel,
        agent=p.agent,
        child_task_id=p.child_task_id,
        answer=p.answer,
        ok=p.ok,
        group=p.group,
    )


def _panel_decided(p: ev.PanelDecided) -> events_pb2.PanelDecided:
    return events_pb2.PanelDecided(
        panel=p.panel,
        answer=p.answer,
        ratio=p.ratio,
        threshold=p.threshold,
        reached=p.reached,
        members=p.members,
        grouping=p.grouping,
    )


TEAM_PAYLOADS: dict[type[Any], tuple[str, Callable[[Any], Message]]] = {
    ev.SubtaskStarted: ("subtask_started", _subtask_started),
    ev.SubtaskFinished: ("subtask_finished", _subtask_finished),
    ev.SubtaskWaiting: ("subtask_waiting", _subtask_waiting),
    ev.PanelVote: ("panel_vote", _panel_vote),
    ev.PanelDecided: ("panel_decided", _panel_decided),
}
"""Each team event type: its TaskEvent `payload` field and how to build its message."""
