"""Artifacts as the engine and the RPCs see them: where a task's live, what it wrote.

A task tree's artifacts live in one space, named by the tree's root task id
(`artifact_space`); the tools `write_artifact` / `read_artifact` (`tools.builtin.artifacts`)
read and write there, and `GetTask` / `GetArtifact` read them for a task the caller's
tenant has.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any

from core.errors import (
    ArtifactNotFoundError,
    ArtifactTooLargeError,
    FieldViolation,
    InvalidArgumentError,
)
from records import events as ev
from records.tasks import Task
from stores.artifacts.base import Artifact, ArtifactInfo, ArtifactStore, is_text, name_problem
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


ANSWER_MARGIN_BYTES = 16 * 1024
"""Room a one-message answer needs besides its content."""


class TaskArtifacts:
    """The artifacts of a task the caller's tenant has (`find`: TaskNotFoundError for
    an unknown task and another tenant's alike). `max_answer_bytes` is the most one
    answer may carry (GetArtifact's: a text version's content twice, as bytes and as
    text); a larger version is read in pieces (`read_range`)."""

    def __init__(
        self,
        store: ArtifactStore,
        find: Callable[[str, str], Awaitable[Task]],
        max_answer_bytes: int = 4 * 1024 * 1024,
    ) -> None:
        self._store = store
        self._find = find
        self._max_answer_bytes = max_answer_bytes

    async def summaries(self, task: Task) -> list[ArtifactInfo]:
        """The latest version of every artifact of the task's tree, by name."""
        return await self._store.latest(task.tenant, artifact_space(task))

    async def get(
        self, tenant: str, task_id: str, name: str, version: int | None = None
    ) -> Artifact:
        """A version of an artifact of the task's tree (the latest when `version` is None),
        whole. InvalidArgumentError for a malformed name or version; TaskNotFoundError;
        ArtifactNotFoundError; ArtifactTooLargeError for one larger than one answer."""
        space, info = await self.describe(tenant, task_id, name, version)
        carried = info.size * 2 if is_text(info.media_type) else info.size
        limit = self._max_answer_bytes - ANSWER_MARGIN_BYTES
        if carried > limit:
            raise ArtifactTooLargeError(name, info.size, limit)
        found = await self._store.read(tenant, space, name, info.version)
        if found is None:
            raise ArtifactNotFoundError(task_id, name, version)
        return found

    async def describe(
        self, tenant: str, task_id: str, name: str, version: int | None = None
    ) -> tuple[str, ArtifactInfo]:
        """The space of the task's tree and a version's description; the errors of `get`
        but the size."""
        violations = []
        if (problem := name_problem(name)) is not None:
            violations.append(FieldViolation("name", problem))
        if version is not None and not 1 <= version <= MAX_VERSION:
            violations.append(FieldViolation("version", f"must be 1 to {MAX_VERSION}"))
        if violations:
            raise InvalidArgumentError(violations)
        task = await self._find(tenant, task_id)
        space = artifact_space(task)
        info = await self._store.describe(tenant, space, name, version)
        if info is None:
            raise ArtifactNotFoundError(task_id, name, version)
        return space, info

    def piece_bytes(self, asked: int) -> int:
        """The bytes of a piece one answer can carry: `asked`, or less when one message
        would not hold it (a small AGENTD_MAX_MESSAGE_BYTES)."""
        return max(1, min(asked, self._max_answer_bytes - ANSWER_MARGIN_BYTES))

    async def read_range(
        self, tenant: str, space: str, info: ArtifactInfo, offset: int, length: int
    ) -> bytes:
        """A piece of a described version's content (`describe`). ArtifactNotFoundError
        when it is gone before its end (retention took it)."""
        piece = await self._store.read_range(tenant, space, info.name, info.version, offset, length)
        if not piece and offset < info.size:
            raise ArtifactNotFoundError(space, info.name, info.version)
        return piece
