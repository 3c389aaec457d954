"""`write_artifact`, `read_artifact`: named, versioned content shared by a task tree.

An artifact lives in the space of the calling task's tree (`CallContext.artifact_space`,
the root task's id; a task on its own is its root). Each write adds a version; a read
gives the latest version or the one asked for. Everything the model sends is checked
before it is stored: the name (`stores.artifacts.base.name_problem`), the media type,
the content's format (text without NUL, well-formed JSON, valid base64), its size
against the cap (AGENTD_ARTIFACT_MAX_BYTES), and the tree's number of artifacts and of
versions per artifact. Refusals of input raise ToolArgumentsInvalidError; limits and
missing artifacts are failures the model is told of (`ToolFailed`).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
from dataclasses import dataclass
from typing import Any

from core.errors import FieldViolation, InvalidArgumentError, ToolArgumentsInvalidError
from core.files import image_facts, is_text, pdf_text
from core.identity import CallContext
from records.parts import ImagePart
from records.tools.model import JSONValue, PermissionLevel, RiskLevel, Tool, ToolOutput, ToolSpec
from records.tools.outcomes import ToolFailed
from stores.artifacts.base import (
    MAX_NAME_CHARS,
    Artifact,
    ArtifactInfo,
    ArtifactStore,
    is_json,
    media_type_problem,
    name_problem,
)

WRITE_ARTIFACT = "write_artifact"
READ_ARTIFACT = "read_artifact"
FORMATS = {"text": "text/plain", "json": "application/json", "base64": "application/octet-stream"}
"""How `content` is written, and the media type each format has unless one is given."""
NAME_SCHEMA: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "maxLength": MAX_NAME_CHARS,
    "pattern": "^[A-Za-z0-9][A-Za-z0-9._-]*$",
    "description": "The artifact's name, e.g. 'plan.md' or 'results.json'.",
}


@dataclass(frozen=True, slots=True)
class ArtifactLimits:
    """What one task tree may keep."""

    max_bytes: int = 1024 * 1024
    """Bytes of content one version may hold (AGENTD_ARTIFACT_MAX_BYTES)."""
    max_artifacts: int = 100
    """Names one task tree may hold (AGENTD_ARTIFACT_MAX_PER_TASK)."""
    max_versions: int = 100
    """Versions one artifact may have (AGENTD_ARTIFACT_MAX_VERSIONS)."""


def _space(context: CallContext, tool: str) -> str:
    space = context.artifact_space or context.task_id
    if not space:
        raise ToolFailed(f"{tool} works inside a task only: artifacts belong to a task's tree")
    return space


def _invalid(tool: str, field: str, problem: str) -> ToolArgumentsInvalidError:
    return ToolArgumentsInvalidError(tool, [FieldViolation(f"arguments.{field}", problem)])


def _checked_name(tool: str, arguments: dict[str, JSONValue]) -> str:
    name = str(arguments["name"])
    problem = name_problem(name)
    if problem is not None:
        raise _invalid(tool, "name", problem)
    return name


def encode_content(content: str, form: str, media_type: str) -> bytes:
    """The bytes `content` stands for in format `form`; ValueError saying what is wrong."""
    if form == "base64":
        try:
            return base64.b64decode(content.encode("ascii"), validate=True)
        except (UnicodeEncodeError, binascii.Error):
            raise ValueError("is not valid base64") from None
    if "\x00" in content:
        raise ValueError("holds a NUL character; write binary content as base64")
    try:
        raw = content.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("is not valid Unicode text (it holds a lone surrogate)") from None
    if form == "json" or is_json(media_type):
        try:
            json.loads(content)
        except ValueError as bad:
            raise ValueError(f"is not valid JSON: {bad}") from None
    if not is_text(media_type):
        raise ValueError(f"is text, but media type {media_type!r} is not a text type")
    return raw


class WriteArtifact(Tool):
    def __init__(self, store: ArtifactStore, limits: ArtifactLimits | None = None) -> None:
        self._store = store
        self.limits = limits = limits or ArtifactLimits()
        self.spec = ToolSpec(
            name=WRITE_ARTIFACT,
            description=(
                "Write a named artifact (a plan, a result, a report) that this task and "
                "the tasks it works with can read, and the caller can fetch. Each write "
                "adds a new version; earlier versions stay readable. format 'text' "
                "(default), 'json' (content is a JSON document) or 'base64' (binary). "
                f"At most {limits.max_bytes} bytes."
            ),
            parameters={
                "type": "object",
                "properties": {
                    "name": NAME_SCHEMA,
                    "content": {"type": "string"},
                    "format": {"type": "string", "enum": list(FORMATS), "default": "text"},
                    "media_type": {
                        "type": "string",
                        "maxLength": 160,
                        "description": (
                            "e.g. 'text/markdown'; default: text/plain, application/json "
                            "or application/octet-stream by format"
                        ),
                    },
                },
                "required": ["name", "content"],
                "additionalProperties": False,
            },
            category="artifacts",
            permission=PermissionLevel.WRITE,
            risk=RiskLevel.LOW,
            idempotent=False,
            timeout_seconds=10.0,
        )

    async def run(self, arguments: dict[str, JSONValue], context: CallContext) -> ToolOutput:
        name = _checked_name(WRITE_ARTIFACT, arguments)
        form = str(arguments.get("format", "text"))
        if form not in FORMATS:
            raise _invalid(WRITE_ARTIFACT, "format", f"must be one of {', '.join(FORMATS)}")
        media_type = str(arguments.get("media_type") or FORMATS[form])
        problem = media_type_problem(media_type)
        if problem is not None:
            raise _invalid(WRITE_ARTIFACT, "media_type", problem)
        try:
            content = encode_content(str(arguments["content"]), form, media_type)
        except ValueError as bad:
            raise _invalid(WRITE_ARTIFACT, "content", str(bad)) from None
        space = _space(context, WRITE_ARTIFACT)
        self._within_limits(len(content))
        await self._room_for(context, space, name)
        info = await self._store.write(
            context.principal.tenant, space, name, media_type, content, context.task_id
        )
        data = {
            "name": info.name,
            "version": info.version,
            "media_type": info.media_type,
            "size": info.size,
            "writer_task_id": info.writer_task_id,
        }
        text = f"wrote {name} version {info.version} ({info.size} bytes, {media_type})"
        return ToolOutput(data=data, text=text)

    async def keep(
        self, context: CallContext, name: str, media_type: str, content: bytes
    ) -> ArtifactInfo:
        """Keep a file a tool returned as an artifact of the calling task's tree, under the
        same limits as a write; ToolFailed saying why it was not kept."""
        space = _space(context, WRITE_ARTIFACT)
        self._within_limits(len(content))
        await self._room_for(context, space, name)
        tenant = context.principal.tenant
        return await self._store.write(tenant, space, name, media_type, content, context.task_id)

    def _within_limits(self, size: int) -> None:
        if size > self.limits.max_bytes:
            raise ToolFailed(
                f"content is {size} bytes, more than the {self.limits.max_bytes} an artifact "
                "may hold (AGENTD_ARTIFACT_MAX_BYTES)"
            )

    async def _room_for(self, context: CallContext, space: str, name: str) -> None:
        """ToolFailed when the tree holds its most artifacts, or `name` its most versions."""
        held = await self._store.latest(context.principal.tenant, space)
        same = next((a for a in held if a.name == name), None)
        if same is None and len(held) >= self.limits.max_artifacts:
            raise ToolFailed(
                f"this task tree holds {len(held)} artifacts, the most it may "
                "(AGENTD_ARTIFACT_MAX_PER_TASK); write a new version of one of them instead"
            )
        if same is not None and same.version >= self.limits.max_versions:
            raise ToolFailed(
                f"artifact {name!r} has {same.version} versions, the most one may have "
                "(AGENTD_ARTIFACT_MAX_VERSIONS)"
            )


MAX_BASE64_BYTES = 16 * 1024
"""Binary content (neither text, an image nor a PDF) up to this size comes back as
base64; a larger one as a note of its type and size."""


async def artifact_output(found: Artifact) -> ToolOutput:
    """What `read_artifact` returns: text as text; an image as an image part of that
    version (shown to a seeing model with the result) and a short text; a PDF's text;
    other binary content as base64 when small, else a note of its type and size."""
    info = found.info
    data: dict[str, JSONValue] = {
        "name": info.name,
        "version": info.version,
        "media_type": info.media_type,
        "size": info.size,
        "writer_task_id": info.writer_task_id,
    }
    about = f"{info.name} version {info.version} ({info.size} bytes of {info.media_type})"
    if (text := found.text) is not None:
        return ToolOutput(data={**data, "format": "text", "content": text}, text=text)
    facts = image_facts(found.content) if info.media_type.startswith("image/") else None
    if facts is not None:
        image = ImagePart(info.name, info.version, facts.media_type, facts.width, facts.height)
        size = {"width": facts.width, "height": facts.height}
        shown = f"{about}: an image of {facts.width}x{facts.height} pixels, attached"
        return ToolOutput(data={**data, "format": "image", **size}, text=shown, images=(image,))
    if info.media_type == "application/pdf":
        try:
            text = await asyncio.to_thread(pdf_text, found.content)
        except InvalidArgumentError:
            return ToolOutput(data={**data, "format": "none"}, text=f"{about}: not a readable PDF")
        text = text.replace("\x00", "")
        return ToolOutput(data={**data, "format": "pdf_text", "content": text}, text=text)
    if info.size <= MAX_BASE64_BYTES:
        encoded = base64.b64encode(found.content).decode()
        data = {**data, "format": "base64", "content": encoded}
        return ToolOutput(data=data, text=f"({info.size} bytes of {info.media_type}, base64)")
    return ToolOutput(data={**data, "format": "none"}, text=f"{about}: binary, not shown")


class ReadArtifact(Tool):
    def __init__(self, store: ArtifactStore) -> None:
        self._store = store
        self.spec = ToolSpec(
            name=READ_ARTIFACT,
            description=(
                "Read an artifact this task or the tasks it works with wrote: its latest "
                "version, or the version asked for. Text comes back as text, an image "
                "as the image itself, a PDF as its text, other small binary content as "
                "base64."
            ),
            parameters={
                "type": "object",
                "properties": {
                    "name": NAME_SCHEMA,
                    "version": {"type": "integer", "minimum": 1, "maximum": 2**31 - 1},
                },
                "required": ["name"],
                "additionalProperties": False,
            },
            category="artifacts",
            permission=PermissionLevel.READ,
            risk=RiskLevel.LOW,
            idempotent=True,
            timeout_seconds=10.0,
        )

    async def run(self, arguments: dict[str, JSONValue], context: CallContext) -> ToolOutput:
        name = _checked_name(READ_ARTIFACT, arguments)
        raw = arguments.get("version")
        version = int(raw) if isinstance(raw, int) and not isinstance(raw, bool) else None
        space = _space(context, READ_ARTIFACT)
        tenant = context.principal.tenant
        found = await self._store.read(tenant, space, name, version)
        if found is None:
            held = [a.name for a in await self._store.latest(tenant, space)]
            which = f"version {version} of {name!r}" if version else repr(name)
            there = ", ".join(held[:50]) if held else "none yet"
            raise ToolFailed(f"there is no artifact {which}; artifacts of this task: {there}")
        return await artifact_output(found)
