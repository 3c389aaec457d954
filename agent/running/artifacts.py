"""Artifacts as the engine and the RPCs see them: where a task's live, what it wrote.

A task tree's artifacts live in one space, named by the tree's root task id
(`artifact_space`); the tools `write_artifact` / `read_artifact` (`tools.builtin.artifacts`)
read and write there, and `GetTask` / `GetArtifact` read them for a task the caller's
tenant has.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any

from core.errors import ArtifactNotFoundError, FieldViolation, InvalidArgumentError
from records import events as ev
from records.tasks import Task
from stores.artifacts.base import Artifact, ArtifactInfo, ArtifactStore, name_problem
from tools.builtin.artifacts import WRITE_ARTIFACT

if TYPE_CHECKING:
    from agent.running.run import TaskRun

MAX_VERSION = 2**31 - 1


def artifact_space(task: Task) -> str:
    """The space of `task`'s artifacts: its task tree's root task id. A task on its own
    is its own root; a child task (delegation) shares its root's space."""
    return task.root


def updated_event(data: Any) -> ev.ArtifactUpdated | None:
    """The `artifact_updated` event of a successful `write_artifact` call's result."""
    if not isinstance(data, dict):
        return None
    try:
        return ev.ArtifactUpdated(
            str(data["name"]),
            int(data["version"]),
            str(data["media_type"]),
            int(data["size"]),
            str(data["writer_task_id"]),
        )
    except (KeyError, TypeError, ValueError):
        return None


def written_refs(run: TaskRun) -> tuple[ev.ArtifactRef, ...]:
    """The artifacts the run's task wrote, each at the version it wrote last, by name:
    from this run's tool calls and, after a takeover, the journal of the runs before."""
    journal = [
        updated_event(e.data)
        for e in run.tools.journal.values()
        if e.finished and e.ok and e.tool_name == WRITE_ARTIFACT
    ]
    return refs([*(u for u in journal if u is not None), *run.transcript.artifacts_written])


def refs(updates: Iterable[ev.ArtifactUpdated | ArtifactInfo]) -> tuple[ev.ArtifactRef, ...]:
    """The latest version of each name among `updates`, by name."""
    latest: dict[str, ev.ArtifactRef] = {}
    for u in updates:
        seen = latest.get(u.name)
        if seen is None or seen.version < u.version:
            latest[u.name] = ev.ArtifactRef(u.name, u.version, u.media_type, u.size)
    return tuple(latest[name] for name in sorted(latest))


class TaskArtifacts:
    """The artifacts of a task the caller's tenant has (`find`: TaskNotFoundError for
    an unknown task and another tenant's alike)."""

    def __init__(self, store: ArtifactStore, find: Callable[[str, str], Awaitable[Task]]) -> None:
        self._store = store
        self._find = find

    async def summaries(self, task: Task) -> list[ArtifactInfo]:
        """The latest version of every artifact of the task's tree, by name."""
        return await self._store.latest(task.tenant, artifact_space(task))

    async def get(
        self, tenant: str, task_id: str, name: str, version: int | None = None
    ) -> Artifact:
        """A version of an artifact of the task's tree (the latest when `version` is None).
        InvalidArgumentError for a malformed name or version; TaskNotFoundError;
        ArtifactNotFoundError."""
        violations = []
        if (problem := name_problem(name)) is not None:
            violations.append(FieldViolation("name", problem))
        if version is not None and not 1 <= version <= MAX_VERSION:
            violations.append(FieldViolation("version", f"must be 1 to {MAX_VERSION}"))
        if violations:
            raise InvalidArgumentError(violations)
        task = await self._find(tenant, task_id)
        found = await self._store.read(tenant, artifact_space(task), name, version)
        if found is None:
            raise ArtifactNotFoundError(task_id, name, version)
        return found
