"""Artifacts as the engine and the RPCs see them: where a task's live, what it wrote.

A task tree's artifacts live in one space, named by the tree's root task id
(`artifact_space`); the tools `write_artifact` / `read_artifact` (`tools.builtin.artifacts`)
read and write there, and `GetTask` / `GetArtifact` read them for a task the caller's
tenant has.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

from core.errors import (
    ArtifactNotFoundError,
    ArtifactTooLargeError,
    FieldViolation,
    InvalidArgumentError,
)
from core.files import is_text
from records import events as ev
from records.messages import Message
from records.parts import ImagePart, InlineImage, MessagePart, TextPart, image_label, unseen_note
from records.tasks import Task
from stores.artifacts.base import Artifact, ArtifactInfo, ArtifactStore, name_problem
from tools.builtin.artifacts import WRITE_ARTIFACT

if TYPE_CHECKING:
    from agent.running.seams import RunTools
    from agent.running.transcript import Transcript


class WritingRun(Protocol):
    """What `written_refs` reads of a run (`agent.running.run.TaskRun`)."""

    @property
    def tools(self) -> RunTools: ...

    @property
    def transcript(self) -> Transcript: ...


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


def written_refs(run: WritingRun) -> tuple[ev.ArtifactRef, ...]:
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


MAX_CACHED_IMAGE_BYTES = 32 * 1024 * 1024
"""A run keeps at most this many bytes of images read for its model calls (then forgets
them all and reads again): every call resends the conversation's images."""


class RunArtifacts:
    """A run's access to its task tree's artifacts: what its input parts hold, and the
    images its messages refer to (`ImagePart`), read once and kept for its later calls
    within `MAX_CACHED_IMAGE_BYTES`."""

    def __init__(self, store: ArtifactStore, task: Task) -> None:
        self._store = store
        self._task = task
        self._kept: dict[tuple[str, int], bytes] = {}
        self._bytes = 0
        self.inputs: tuple[MessagePart, ...] | None = None
        """The task's input parts as message parts, once made (`agent.seeing.inputs`)."""

    async def read(self, name: str, version: int | None = None) -> Artifact | None:
        """A version of an artifact of the task's tree (None: there is none)."""
        task = self._task
        return await self._store.read(task.tenant, artifact_space(task), name, version)

    async def data(self, image: ImagePart) -> bytes | None:
        """The image's bytes; None when the artifact is gone."""
        key = (image.artifact, image.version)
        kept = self._kept.get(key)
        if kept is not None:
            return kept
        found = await self.read(*key)
        if found is None:
            return None
        if self._bytes + len(found.content) > MAX_CACHED_IMAGE_BYTES:
            self._kept.clear()
            self._bytes = 0
        self._kept[key] = found.content
        self._bytes += len(found.content)
        return found.content

    async def shown(self, messages: Sequence[Message], sees: bool) -> Sequence[Message]:
        """`messages` as a model is sent them: each `ImagePart` an `InlineImage` for a model
        that sees images, else (or when its artifact is gone) a text note naming it."""
        if not any(m.parts for m in messages):
            return messages
        out: list[Message] = []
        for message in messages:
            if not any(isinstance(p, ImagePart) for p in message.parts):
                out.append(message)
                continue
            parts = [await self._part(p, sees) for p in message.parts]
            out.append(replace(message, parts=tuple(parts)))
        return out

    async def _part(self, part: MessagePart, sees: bool) -> MessagePart:
        if not isinstance(part, ImagePart):
            return part
        if not sees:
            return TextPart(unseen_note(part))
        data = await self.data(part)
        if data is None:
            return TextPart(f"[image {image_label(part)} — its artifact is no longer kept]")
        return InlineImage(part, data)


def notes(messages: Sequence[Message]) -> list[Message]:
    """`messages` with each image a note naming its artifact (no artifact store to read)."""
    return [replace(m, parts=tuple(_noted(p) for p in m.parts)) if m.parts else m for m in messages]


def _noted(part: MessagePart) -> MessagePart:
    return TextPart(unseen_note(part)) if isinstance(part, ImagePart) else part
