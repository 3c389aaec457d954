"""What a task's final answer says it wrote: this run's writes and, after a takeover,
those journalled by the runs before it."""

from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING, cast

from agent.running.artifacts import artifact_space, updated_event, written_refs
from records import events as ev
from records.checkpoints import JournalEntry
from records.tasks import Task

if TYPE_CHECKING:
    from agent.running.run import TaskRun


def _data(name: str, version: int) -> dict[str, object]:
    return {"name": name, "version": version, "media_type": "text/plain", "size": 3,
            "writer_task_id": "t"}  # fmt: skip


def test_refs_merge_the_journal_and_this_run_latest_version_each() -> None:
    journal = {
        "s1/0": JournalEntry("c1", "write_artifact", True, True, "", _data("plan", 1)),
        "s1/1": JournalEntry("c2", "write_artifact", True, False, "failed", None),
        "s1/2": JournalEntry("c3", "write_artifact", False),  # cut off: outcome unknown
        "s1/3": JournalEntry("c4", "write_file", True, True, "", _data("nope", 9)),
    }
    run = SimpleNamespace(
        tools=SimpleNamespace(journal=journal),
        transcript=SimpleNamespace(
            artifacts_written=[
                ev.ArtifactUpdated("plan", 2, "text/markdown", 5, "t"),
                ev.ArtifactUpdated("notes", 1, "text/plain", 1, "t"),
            ]
        ),
    )
    assert written_refs(cast("TaskRun", run)) == (
        ev.ArtifactRef("notes", 1, "text/plain", 1),
        ev.ArtifactRef("plan", 2, "text/markdown", 5),
    )


def test_an_unexpected_result_makes_no_event() -> None:
    assert updated_event(None) is None
    assert updated_event({"name": "x"}) is None
    assert updated_event({**_data("x", 1), "version": "two"}) is None
    assert updated_event(_data("x", 1)) == ev.ArtifactUpdated("x", 1, "text/plain", 3, "t")


def test_a_task_on_its_own_is_its_own_space() -> None:
    assert artifact_space(Task("task_1", "t1", "p", "do")) == "task_1"


def test_a_piece_fits_one_answer() -> None:
    from agent.running.artifacts import ANSWER_MARGIN_BYTES, TaskArtifacts
    from stores.artifacts.memory import InMemoryArtifactStore

    async def find(tenant: str, task_id: str) -> Task:
        return Task(task_id, tenant, "p", "g")

    small = TaskArtifacts(InMemoryArtifactStore(), find, max_answer_bytes=40_000)
    assert small.piece_bytes(1024 * 1024) == 40_000 - ANSWER_MARGIN_BYTES
    assert small.piece_bytes(4096) == 4096
