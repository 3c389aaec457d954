"""The first user message's parts, made from the task's input parts (`Task.input_parts`,
each kept as an artifact of the task, version 1), in their order:

- an image (PNG, JPEG, GIF, WebP) as an `ImagePart` referring to its artifact (the run
  inlines it before each call for a model that sees images, `agent.running.model_calls`);
- a PDF as its text (pypdf, as knowledge ingestion reads one: `agent.knowledge.documents`)
  and a text document (text/*, JSON, XML, YAML…) as its text, each marked with its name,
  up to `FitPolicy.input_text_chars` characters (then cut, with a note);
- anything else, or a document that cannot be read, as a note naming its artifact.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import TYPE_CHECKING

from core.errors import InvalidArgumentError
from core.files import IMAGE_FORMATS, is_text
from records.messages import Message
from records.parts import ImagePart, InputPart, MessagePart, TextPart

if TYPE_CHECKING:
    from agent.running.run import TaskRun

INPUT_VERSION = 1
"""The version each input part is kept as."""


async def with_inputs(run: TaskRun, messages: list[Message]) -> None:
    """Give the task's first user message (the last of a fresh run's opening messages,
    `Transcript.opening`) its input parts."""
    if run.task.input_parts and messages and messages[-1].role == "user":
        messages[-1] = replace(messages[-1], parts=await input_parts(run))


async def input_parts(run: TaskRun) -> tuple[MessagePart, ...]:
    """The message parts the task's input parts become, in order (made once a run: a
    plan's steps each show them)."""
    if run.artifacts is not None and run.artifacts.inputs is not None:
        return run.artifacts.inputs
    limit = run.config.fitting.input_text_chars
    parts = tuple([await _part(run, part, limit) for part in run.task.input_parts])
    if run.artifacts is not None:
        run.artifacts.inputs = parts
    return parts


async def _part(run: TaskRun, part: InputPart, limit: int) -> MessagePart:
    media_type = part.media_type.split(";", 1)[0].strip().lower()
    if media_type in IMAGE_FORMATS:
        return ImagePart(part.name, INPUT_VERSION, media_type, part.width, part.height)
    if media_type != "application/pdf" and not is_text(media_type):
        return TextPart(_note(part, "kept as an artifact; read_artifact can return it"))
    found = await run.artifacts.read(part.name, INPUT_VERSION) if run.artifacts else None
    if found is None:
        return TextPart(_note(part, "its artifact cannot be read"))
    # Knowledge's reader on first use: importing it at start-up would bring the vector
    # libraries in with it (a server without input documents never needs them).
    from agent.knowledge.documents import decode, parse

    try:
        if media_type == "application/pdf":  # CPU-bound: off the event loop
            text = await asyncio.to_thread(parse, found.content, media_type)
        else:
            text = decode(found.content).replace("\x00", "")
    except InvalidArgumentError:
        return TextPart(_note(part, "its text cannot be read; read_artifact can return it"))
    return TextPart(document_text(part.name, media_type, text, limit))


def document_text(name: str, media_type: str, text: str, limit: int) -> str:
    """A document's text marked with its name, cut at `limit` characters with a note."""
    head = f"[document {name} ({media_type})]"
    if len(text) <= limit:
        return f"{head}\n{text}\n[end of {name}]"
    cut = len(text) - limit
    return (
        f"{head}\n{text[:limit]}\n[… {cut} more characters of {name} cut; "
        "read_artifact returns the whole]"
    )


def _note(part: InputPart, why: str) -> str:
    return f"[file {part.name} ({part.media_type}, {part.size} bytes): {why}]"
