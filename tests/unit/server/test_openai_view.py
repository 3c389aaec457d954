"""A response as its task's log makes it (`server.openai.view`): the Responses events of
each task event, numbered seq * 16 + n, the same however often the log is read; tool
calls as `mcp_call` items, an approval as an `mcp_approval_request`, the response
incomplete while it waits."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from records import events as ev
from records.tasks import StopReason, Task, TaskStatus
from records.tools.outcomes import ToolCallError, ToolErrorKind
from server.openai.view import ResponseView, call_of_approval, ends

AT = datetime(2026, 1, 2, tzinfo=UTC)


def _task() -> Task:
    return Task(task_id="task_1", tenant="t", owner="o", goal="6*7?", created_at=AT)


def _log(*payloads: ev.EventPayload) -> list[ev.TaskEvent]:
    return [ev.TaskEvent("task_1", n, AT, "trace", p) for n, p in enumerate(payloads, 1)]


LOG = _log(
    ev.StatusChanged(TaskStatus.PENDING),
    ev.StatusChanged(TaskStatus.RUNNING, TaskStatus.PENDING),
    ev.TextDelta("s1", "Let me "),
    ev.TextDelta("s1", "compute."),
    ev.ToolCallStarted("c1", "s1", "calculator", {"expression": "6*7"}),
    ev.ToolCallFinished("c1", "calculator", 42, None, 0.1, "42"),
    ev.ToolCallStarted("c2", "s1", "clock", {}),
    ev.ToolCallFinished(
        "c2", "clock", None, ToolCallError(ToolErrorKind.FAILED, "down"), 0.1, "down"
    ),
    ev.StatusChanged(TaskStatus.INPUT_REQUIRED, TaskStatus.RUNNING),
    ev.ApprovalRequested("c3", "current_time", {}, "needs approval"),
    ev.StatusChanged(TaskStatus.RUNNING, TaskStatus.INPUT_REQUIRED),
    ev.FinalAnswer("It is 42.", StopReason.FINAL_ANSWER),
    ev.StatusChanged(TaskStatus.COMPLETED, TaskStatus.RUNNING),
)


def _all(log: list[ev.TaskEvent]) -> tuple[ResponseView, list[dict[str, Any]]]:
    view = ResponseView(_task())
    return view, [item for event in log for item in view.step(event)]


def test_the_events_of_a_log_and_their_numbers() -> None:
    view, found = _all(LOG)
    assert [(e["sequence_number"], e["type"]) for e in found] == [
        (16, "response.created"),
        (32, "response.in_progress"),
        (48, "response.output_item.added"),
        (49, "response.content_part.added"),
        (50, "response.output_text.delta"),
        (64, "response.output_text.delta"),
        (80, "response.output_text.done"),
        (81, "response.content_part.done"),
        (82, "response.output_item.done"),
        (83, "response.output_item.added"),
        (84, "response.mcp_call.in_progress"),
        (96, "response.mcp_call.completed"),
        (97, "response.output_item.done"),
        (112, "response.output_item.added"),
        (113, "response.mcp_call.in_progress"),
        (128, "response.mcp_call.failed"),
        (129, "response.output_item.done"),
        (160, "response.output_item.added"),
        (161, "response.output_item.done"),
        (162, "response.incomplete"),
        (176, "response.in_progress"),
        (192, "response.output_item.added"),
        (193, "response.content_part.added"),
        (194, "response.output_text.delta"),
        (195, "response.output_text.done"),
        (196, "response.content_part.done"),
        (197, "response.output_item.done"),
        (208, "response.completed"),
    ]
    done = view.response()
    assert done["id"] == "resp_task_1"
    assert done["status"] == "completed"
    kinds = [(i["type"], i.get("name"), i.get("status")) for i in done["output"]]
    assert kinds == [
        ("message", None, "completed"),
        ("mcp_call", "calculator", "completed"),
        ("mcp_call", "clock", "failed"),
        ("mcp_approval_request", "current_time", None),
        ("message", None, "completed"),
    ]
    assert done["output"][1]["server_label"] == "agentd"
    assert done["output"][1]["output"] == "42"
    assert done["output"][2]["error"] == {"type": "mcp_tool_execution_error", "content": "down"}
    assert call_of_approval(done["output"][3]["id"]) == "c3"
    assert [i["content"][0]["text"] for i in done["output"] if i["type"] == "message"] == [
        "Let me compute.",
        "It is 42.",
    ]
    assert not any(e["type"].startswith("response.function_call") for e in found)


def test_a_second_reading_of_the_log_numbers_every_event_the_same() -> None:
    _, first = _all(LOG)
    _, again = _all(LOG)
    assert first == again
    numbers = [e["sequence_number"] for e in first]
    assert numbers == sorted(set(numbers))


def test_a_response_waiting_for_approval_is_incomplete() -> None:
    _, found = _all(LOG[:10])
    assert found[-1]["type"] == "response.incomplete"
    assert found[-1]["response"]["status"] == "incomplete"
    assert [ends(e, 0) for e in LOG[:10]] == [False] * 9 + [True]
    assert not ends(LOG[9], LOG[9].sequence)  # answered already: the stream goes on
    assert ends(LOG[-1], 99)  # the end ends it always


def test_a_final_answer_not_streamed_is_one_message() -> None:
    view, found = _all(
        _log(
            ev.StatusChanged(TaskStatus.PENDING),
            ev.FinalAnswer("Hi.", StopReason.FINAL_ANSWER),
            ev.StatusChanged(TaskStatus.FAILED, TaskStatus.PENDING, "the model is down"),
        )
    )
    assert [e["type"] for e in found][-2:] == ["response.output_item.done", "response.failed"]
    answer = view.response()
    assert answer["output"][0]["content"][0]["text"] == "Hi."
    assert answer["error"] == {"code": "server_error", "message": "the model is down"}


def test_a_task_whose_log_is_gone_is_its_record() -> None:
    task = _task()
    task.status, task.final_answer = TaskStatus.COMPLETED, "It is 42."
    answer = ResponseView(task).recorded()
    assert answer["status"] == "completed"
    assert [i["content"][0]["text"] for i in answer["output"]] == ["It is 42."]
    cancelled = _task()
    cancelled.status, cancelled.stop_detail = TaskStatus.CANCELLED, "cancelled by alice"
    assert ResponseView(cancelled).recorded()["error"] == {
        "code": "cancelled",
        "message": "cancelled by alice",
    }
