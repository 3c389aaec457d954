"""The files a tool returned, kept at the one door of tool calls (`calls.ToolCalls`).

Each `ToolFile` of a call's output becomes an artifact of the task's tree, under the
limits of `write_artifact` (AGENTD_ARTIFACT_MAX_BYTES, the tree's count, versions per
name: that tool's own checks), named `<tool>-<step>-<n>-<suggested name>` and announced
by `artifact_updated` as a write is. The model is told each file's name, type, size and
SHA-256 digest in the result's text (the journal and the recording keep that text, the
audit record a digest over the same facts: never the bytes); a file not kept (over a
limit, no artifact store, a replay) is named with why, and the call does not fail for
it. A PNG, JPEG, GIF or WebP image (checked from its header) goes on the tool message
as an `ImagePart`, shown to a seeing model on the next call.

A replay writes nothing: a live read-only call's files are not kept, and a recorded
call's result names the artifacts the recorded run kept.
"""

from __future__ import annotations

import mimetypes
import re
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from agent.running.seams import RunReplay
from core.files import ImageFacts, image_facts
from records import events as ev
from records.parts import ImagePart
from records.tools.model import ToolFile
from records.tools.outcomes import ToolCallResult, ToolFailed
from stores.artifacts.base import media_type_problem, name_problem
from tools.builtin.artifacts import WRITE_ARTIFACT, WriteArtifact
from tools.calls import file_facts
from tools.registry import ToolRegistry

if TYPE_CHECKING:
    from agent.running.run import TaskRun

MAX_FILES = 20
"""Files one call may leave; those after them are named and not kept."""
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_EXTENSION = re.compile(r"[A-Za-z0-9]{1,8}")
_EXTENSIONS = {"image/jpeg": ".jpg", "text/plain": ".txt", "application/octet-stream": ".bin"}


def artifact_name(tool: str, place: str, n: int, suggested: str, media_type: str) -> str:
    """A valid artifact name for the `n`th file of a call (1, 2, ...) made at `place`
    (`call_place`): `<tool>-<place>-<n>-<stem><ext>`, the stem and extension from the
    last segment of the tool's suggestion (the extension from the media type when it has
    none), any run of other characters than letters, digits and `. _ -` as one `-`."""
    base = re.split(r"[/\\]", suggested)[-1]
    stem, dot, ext = base.rpartition(".")
    if not dot or not _EXTENSION.fullmatch(ext):
        stem, ext = base, ""
    suffix = f".{ext.lower()}" if ext else _extension(media_type)
    head = "-".join(_UNSAFE.sub("-", p).strip(".-_") for p in (tool, place, str(n)))
    stem = _UNSAFE.sub("-", stem).strip(".-_")[:48].strip(".-_")
    name = f"{head}-{stem}{suffix}" if stem else f"{head}{suffix}"
    name = re.sub(r"\.{2,}", ".", name)
    return name if name_problem(name) is None else f"file-{n}.bin"


def call_place(run: TaskRun, call_id: str, key: str) -> str:
    """Where a call stands in its task tree, for its files' names: its journal key (the
    step and its position, `iteration-2/0`: the same on a resumed run, so a call made
    again writes new versions of the same names), after the task's id for a child task
    (which shares its root's space); the call's id when it has no key."""
    place = key or call_id.removeprefix("call_")
    task = run.task
    return place if task.task_id == task.root else f"{task.task_id[-8:]}-{place}"


def _extension(media_type: str) -> str:
    found = _EXTENSIONS.get(media_type) or mimetypes.guess_extension(media_type) or ""
    return found if _EXTENSION.fullmatch(found[1:]) else ".bin"


class Door(Protocol):
    """What keeping files needs of the door (`calls.ToolCalls`)."""

    registry: ToolRegistry
    replay: RunReplay | None


async def keep_files(run: TaskRun, door: Door, result: ToolCallResult, key: str) -> ToolCallResult:
    """`result` with its files kept (their bytes dropped from it), the model told of each
    in its text, and the images among them added to `images`; `key` is the call's journal
    key."""
    if not result.files:
        return result
    writer = door.registry.catalog.get(WRITE_ARTIFACT)
    keeper = writer if isinstance(writer, WriteArtifact) and door.replay is None else None
    place = call_place(run, result.call_id, key)
    notes: list[str] = []
    images = list(result.images)
    for file in result.files[MAX_FILES:]:
        notes.append(f"file {file.name[:64]!r} not kept: a call keeps {MAX_FILES} files at most")
    for n, file in enumerate(result.files[:MAX_FILES], 1):
        typed = _type_of(file)
        name = artifact_name(result.tool_name, place, n, file.name, typed[0])
        note, image = await _keep(run, keeper, name, file, typed, replay=door.replay is not None)
        notes.append(note)
        if image is not None:
            images.append(image)
    text = "\n".join([result.text, *notes]) if result.text else "\n".join(notes)
    return replace(result, text=text, files=(), images=tuple(images))


def _type_of(file: ToolFile) -> tuple[str, ImageFacts | None]:
    """The file's media type, and its image facts when it is an image a model may be
    shown: the type its header says, else the type declared when the store takes it and
    it does not claim to be an image, else application/octet-stream."""
    facts = image_facts(file.content)
    if facts is not None:
        return facts.media_type, facts
    declared = file.media_type.strip().lower()
    if media_type_problem(declared) is None and not declared.startswith("image/"):
        return declared, None
    return "application/octet-stream", None


async def _keep(
    run: TaskRun,
    writer: WriteArtifact | None,
    name: str,
    file: ToolFile,
    typed: tuple[str, ImageFacts | None],
    *,
    replay: bool,
) -> tuple[str, ImagePart | None]:
    """One file kept (`typed`: its type and image facts, `_type_of`): what the model is
    told of it, and its image part when it is one."""
    media_type, facts = typed
    said = file_facts(replace(file, media_type=media_type))
    about = f"{media_type}, {said['size']} bytes, sha256 {said['sha256']}"
    if replay:
        return f"file not kept ({about}): a replay writes no artifacts", None
    if writer is None:
        return f"file not kept ({about}): this server keeps no artifacts", None
    try:
        info = await writer.keep(run.tool_context(), name, media_type, file.content)
    except ToolFailed as refused:
        return f"file not kept ({about}): {refused.message}", None
    await run.transcript.emit(
        ev.ArtifactUpdated(info.name, info.version, media_type, info.size, info.writer_task_id)
    )
    note = f"file kept as artifact {info.name} version {info.version} ({about})"
    if facts is None:
        return note, None
    image = ImagePart(info.name, info.version, media_type, facts.width, facts.height)
    return f"{note}; an image of {facts.width}x{facts.height} pixels", image
