"""The caller's goal is `goal` inside the code (it was `task` on `Task` and `TaskRequest`):
what an earlier version stored still loads, and a request's idempotency digest is the same."""

from __future__ import annotations

from datetime import UTC, datetime

from records import serialization
from records.execution import ExecutionMode
from records.requests import TaskRequest
from records.tasks import ParentLink, Task, TaskStatus

STORED_BEFORE = (
    '{"task_id":"task_0123","tenant":"acme","owner":"alice","task":"Summarise the quarterly '
    'report","mode":{"__e":"ExecutionMode","v":"auto"},"context":{},"tools":{"__tuple":[]},'
    '"max_iterations":10,"trace_id":"","labels":{"team":"ops"},"time_limit_seconds":null,'
    '"partial":false,"plan":null,"agent":null,"bypass_tool_cache":false,"conversation_id":"",'
    '"parent_task_id":"","root_task_id":"","depth":0,"lineage":{"__tuple":[]},'
    '"delegates":{"__tuple":[]},"children":{"__tuple":[]},"carried":{"__tuple":[]},'
    '"status":{"__e":"TaskStatus","v":"pending"},"final_answer":"","citations":{"__tuple":[]},'
    '"failure":null,"stop_reason":null,"stop_detail":"","usage":{"prompt_tokens":0,'
    '"completion_tokens":0,"reasoning_tokens":0,"saved_tokens":0,"__t":"TokenUsage"},'
    '"current_step":0,"total_steps":0,"last_sequence":0,'
    '"created_at":{"__dt":"2026-01-02T03:04:05+00:00"},'
    '"updated_at":{"__dt":"2026-01-02T03:04:05+00:00"},"__t":"Task"}'
)
"""`serialization.dumps` of a Task, as written by main before the rename (commit 71fc987):
the goal under the key "task" (Redis live tasks, checkpoints, task_history.data)."""

WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def test_a_task_stored_before_the_rename_loads_with_its_goal() -> None:
    task = serialization.loads(STORED_BEFORE)
    assert isinstance(task, Task)
    assert task.goal == "Summarise the quarterly report"
    assert (task.task_id, task.owner, task.labels, task.status, task.created_at) == (
        "task_0123",
        "alice",
        {"team": "ops"},
        TaskStatus.PENDING,
        WHEN,
    )


def test_a_task_is_stored_in_the_shape_every_version_reads() -> None:
    """The goal is kept under the key it was first stored by: a replica of the previous
    version reads what this one writes (a rolling upgrade shares Redis and checkpoints)."""
    task = serialization.loads(STORED_BEFORE)
    assert serialization.dumps(task) == STORED_BEFORE
    written = serialization.dumps(Task(task_id="t", tenant="a", owner="o", goal="Add 2 and 2"))
    assert '"task":"Add 2 and 2"' in written
    assert '"goal"' not in written
    assert serialization.loads(written).goal == "Add 2 and 2"


def test_the_goal_of_a_context_is_not_renamed() -> None:
    """Only a Task's own field is stored under its first name, never user data."""
    task = Task(task_id="t", tenant="a", owner="o", goal="g", context={"task": 1, "goal": 2})
    assert serialization.loads(serialization.dumps(task)).context == {"task": 1, "goal": 2}


# Each literal is `TaskRequest(...).fingerprint()` computed on main before the rename
# (commit 71fc987, when the field was `task`): an idempotency record stores the digest,
# so a retry sent across the upgrade must still match it.


def test_the_digest_of_a_request_is_unchanged_by_the_rename() -> None:
    request = TaskRequest(goal="hello")
    assert request.fingerprint() == (
        "af320bba4e6bac663e7f5a01d053b6f41c0297cf2ec98bae05c7db33c89bd3cb"
    )
    request = TaskRequest(
        goal="Summarise the quarterly report",
        tools=("web_search",),
        context={"region": "emea"},
        max_iterations=5,
        mode=ExecutionMode.FUNCTION_CALLING,
        token_budget=1000,
        timeout_seconds=30.0,
        labels={"team": "ops"},
    )
    assert request.fingerprint() == (
        "69875850e7cd9c0878c6938a4dd6e91e7ba7eba1600dbd07b3b1b5b1d8e1c9cb"
    )


def test_the_digest_of_a_child_request_is_unchanged_by_the_rename() -> None:
    link = ParentLink(task_id="task_abc", root_task_id="task_abc", depth=1)
    request = TaskRequest(goal="Check the figures", agent="analyst@2", parent=link)
    assert request.fingerprint() == (
        "8f8b2ec6bb0520c19b2fddea0659300f216e87b65fec0c12d03180075c7fe914"
    )


def test_a_field_added_later_is_stored_only_when_set() -> None:
    """`wait_limit_seconds` came after the stored form was fixed: a task without one is
    stored as before; one with it round-trips (an older replica ignores the key)."""
    task = serialization.loads(STORED_BEFORE)
    task.wait_limit_seconds = 60.0
    stored = serialization.dumps(task)
    assert '"wait_limit_seconds":60.0' in stored
    again = serialization.loads(stored)
    assert isinstance(again, Task)
    assert again.wait_limit_seconds == 60.0
