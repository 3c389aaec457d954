from __future__ import annotations

from agentd.v1 import agent_service_pb2, tasks_pb2
from records.tasks import StopReason, Task, TaskFailure, TaskStatus, TokenUsage
from server.convert import events as convert_events
from server.convert import tasks as convert


def test_struct_round_trip_keeps_whole_numbers_as_ints() -> None:
    data = {"n": 3, "f": 1.5, "nested": {"list": [1, 2.25, "x", None, True]}, "big": 2**60}
    back = convert.struct_to_dict(convert.dict_to_struct(data))
    assert back["n"] == 3
    assert isinstance(back["n"], int)
    assert back["f"] == 1.5
    assert back["nested"] == {"list": [1, 2.25, "x", None, True]}
    assert isinstance(back["big"], float)  # beyond 2**53 a double cannot promise an int


def test_task_to_proto() -> None:
    task = Task(
        task_id="task_1",
        tenant="t",
        owner="p",
        goal="do it",
        context={"k": "v"},
        status=TaskStatus.FAILED,
        failure=TaskFailure("LLM_UNAVAILABLE", "down"),
        usage=TokenUsage(10, 5, 2),
        current_step=2,
        total_steps=4,
    )
    message = convert.task_to_proto(task)
    assert message.status == tasks_pb2.TASK_STATUS_FAILED
    assert message.error.reason == "LLM_UNAVAILABLE"
    assert message.usage.total_tokens == 15
    assert message.usage.reasoning_tokens == 2
    assert (message.progress.current_step, message.progress.total_steps) == (2, 4)
    assert convert.struct_to_dict(message.context) == {"k": "v"}
    assert message.create_time.ToDatetime().year >= 2026


def test_every_domain_status_has_a_wire_value() -> None:
    for status in TaskStatus:
        assert convert.task_status_to_proto(status) != tasks_pb2.TASK_STATUS_UNSPECIFIED


def test_every_event_kind_has_a_place_in_the_oneof() -> None:
    import typing

    from agentd.v1 import events_pb2
    from records import events as ev

    kinds = {cls.__dataclass_fields__["type"].default for cls in typing.get_args(ev.EventPayload)}
    oneof = events_pb2.TaskEvent.DESCRIPTOR.oneofs_by_name["payload"]
    # A heartbeat belongs to the transport (a stream's sign of life), not to a task's log.
    assert kinds | {"heartbeat"} == {field.name for field in oneof.fields}


def test_a_resumed_event_and_an_unknown_outcome_reach_the_wire() -> None:
    from datetime import UTC, datetime

    from agentd.v1 import tools_pb2
    from records import events as ev
    from records.tools.outcomes import ToolCallError, ToolErrorKind

    stamp = datetime.now(UTC)
    resumed = convert_events.event_to_proto(
        ev.TaskEvent("t", 7, stamp, "0" * 31 + "1", ev.TaskResumed("lease expired", "r2", 3))
    )
    assert resumed.resumed.replica == "r2"
    assert resumed.resumed.completed_steps == 3
    unknown = ToolCallError(ToolErrorKind.OUTCOME_UNKNOWN, "outcome unknown")
    finished = convert_events.event_to_proto(
        ev.TaskEvent(
            "t", 8, stamp, "0" * 31 + "1",
            ev.ToolCallFinished("c1", "http_request", None, unknown, 0.0, "outcome unknown"),
        )
    )  # fmt: skip
    assert finished.tool_call_finished.error.kind == tools_pb2.TOOL_ERROR_KIND_OUTCOME_UNKNOWN
    for kind in ToolErrorKind:
        assert convert.tool_error_to_proto(ToolCallError(kind, "x")).kind != 0


def test_a_spend_limit_reaches_the_task_request_and_its_stop_reason_the_wire() -> None:
    request = agent_service_pb2.ExecuteRequest(task="do it", spend_limit=2_500_000)
    assert convert.task_request(request).spend_limit == 2_500_000
    assert convert.task_request(agent_service_pb2.ExecuteRequest(task="x")).spend_limit == 0
    wire = convert.stop_reason_to_proto(StopReason.SPEND_LIMIT)
    assert wire == tasks_pb2.STOP_REASON_SPEND_LIMIT
