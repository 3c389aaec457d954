"""ReplayTask's request and a replay's report (`Task.replay`) between protobuf and
`records.traces.replays`."""

from __future__ import annotations

from agent.requests import label_violations
from agentd.v1 import replays_pb2
from core.errors import FieldViolation, InvalidArgumentError
from records.traces.replays import ReplayInfo, ReplayRequest, ReplayTools

_TOOLS: dict[replays_pb2.ReplayTools.ValueType, ReplayTools] = {
    replays_pb2.REPLAY_TOOLS_UNSPECIFIED: ReplayTools.RECORDED,
    replays_pb2.REPLAY_TOOLS_RECORDED: ReplayTools.RECORDED,
    replays_pb2.REPLAY_TOOLS_READ_ONLY: ReplayTools.READ_ONLY,
}
_TOOLS_TO_PROTO: dict[ReplayTools, replays_pb2.ReplayTools.ValueType] = {
    ReplayTools.RECORDED: replays_pb2.REPLAY_TOOLS_RECORDED,
    ReplayTools.READ_ONLY: replays_pb2.REPLAY_TOOLS_READ_ONLY,
}


def replay_request(request: replays_pb2.ReplayTaskRequest) -> ReplayRequest:
    """The request checked (its task id is the handler's): INVALID_ARGUMENT naming each
    field that is wrong."""
    violations: list[FieldViolation] = []
    tools = _TOOLS.get(request.tools)
    if tools is None:
        violations.append(FieldViolation("tools", f"{request.tools} is not a ReplayTools value"))
    violations.extend(label_violations(dict(request.labels), "labels"))
    if violations:
        raise InvalidArgumentError(violations)
    return ReplayRequest(
        task_id=request.task_id,
        agent=request.agent,
        tools=tools or ReplayTools.RECORDED,
        labels=dict(request.labels),
        idempotency_key=request.idempotency_key,
    )


def replay_to_proto(info: ReplayInfo) -> replays_pb2.ReplayInfo:
    message = replays_pb2.ReplayInfo(
        source_task_id=info.source_task_id,
        tools=_TOOLS_TO_PROTO[info.tools],
        diverged=info.diverged,
        recorded_calls=info.recorded_calls,
        not_run_calls=info.not_run_calls,
        live_calls=info.live_calls,
    )
    if info.divergence is not None:
        found = info.divergence
        message.divergence.CopyFrom(
            replays_pb2.ReplayDivergence(
                kind=found.kind.value,
                index=found.index,
                recorded=found.recorded,
                replayed=found.replayed,
            )
        )
    return message
