"""An MCP server's tool as an agentd `Tool`: listed as `<toolset>.<tool>` and called
through the registry like a built-in (grants, approvals, schema, timeout, audit).

What the file sets for the tool (or its toolset) wins; what it leaves unset comes from
the defaults below, except idempotency, which follows the tool's MCP annotations
(`readOnlyHint` or `idempotentHint`). Annotations are the server's hints, so they only
ever decide whether a failed call may be retried, never the level a caller needs.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

import mcp_types as types
from mcp.shared.dispatcher import ProgressFnT

from core.identity import CallContext
from records.tools.model import (
    TOOL_NAME_PATTERN,
    JSONValue,
    Tool,
    ToolFile,
    ToolOutput,
    ToolSpec,
)
from records.tools.outcomes import ToolFailed
from tools import progress
from tools.mcp.connection import McpConnection
from tools.progress import ProgressSink, checked
from tools.toolsets.config import ToolsetConfig, ToolSettings, tool_spec
from tools.validation import schema_problem

MAX_DESCRIPTION_CHARS = 4000


def settings_for(
    toolset: ToolsetConfig, tool: str, hints: types.ToolAnnotations | None
) -> ToolSettings:
    """The settings of one tool: the file's for the tool, then its toolset's, then the
    annotations' idempotency (`tool_spec` puts the defaults under them)."""
    from_hints = ToolSettings(
        idempotent=bool(hints and (hints.read_only_hint or hints.idempotent_hint))
    )
    return toolset.overrides.get(tool, ToolSettings()).over(toolset.defaults).over(from_hints)


def spec_of(toolset: ToolsetConfig, tool: types.Tool) -> ToolSpec:
    """The spec of a server's tool; ValueError saying why agentd cannot offer it."""
    name = f"{toolset.name}.{tool.name}"
    if not TOOL_NAME_PATTERN.fullmatch(name):
        raise ValueError(f"its name {tool.name!r} is not 1-96 letters, digits and . _ -")
    schema = dict(tool.input_schema)
    if schema.get("type") != "object":
        raise ValueError("its input schema is not a JSON Schema of an object")
    problem = schema_problem(schema)
    if problem is not None:
        raise ValueError(f"its input schema: {problem}")
    return tool_spec(
        toolset.name,
        settings_for(toolset, tool.name, tool.annotations),
        name=name,
        description=(tool.description or tool.title or "")[:MAX_DESCRIPTION_CHARS],
        parameters=schema,
        source="mcp",
    )


class McpTool(Tool):
    """Calls one tool of an MCP server over its toolset's connection."""

    def __init__(self, spec: ToolSpec, remote_name: str, connection: McpConnection) -> None:
        self.spec = spec
        self._remote = remote_name
        self._connection = connection

    async def run(self, arguments: dict[str, JSONValue], context: CallContext) -> ToolOutput:
        try:
            result = await self._connection.call(
                self._remote,
                self.spec.name,
                arguments,
                context.principal.tenant,
                progress_callback=progress_callback(progress.current()),
            )
        except ToolFailed as failed:
            if failed.code is None or failed.code not in self.spec.resumable_errors:
                raise
            raise ToolFailed(failed.message, resumable=True, code=failed.code) from None
        return output_of(result)

    def unavailable(self) -> str:
        return self._connection.unavailable()


def progress_callback(sink: ProgressSink | None) -> ProgressFnT | None:
    """The SDK's callback for a call's progress notifications: each one checked (it is
    the server's word) and handed to `sink`."""
    if sink is None:
        return None

    async def heard(progress: float, total: float | None, message: str | None) -> None:
        found = checked(progress, total, message or "")
        if found is not None:
            sink(found)

    return heard


INLINE_RESOURCE_CHARS = 16_000
"""An embedded text resource up to this long stays in the result's text; a longer one
is kept as a file (an artifact) and named there."""


def output_of(result: types.CallToolResult) -> ToolOutput:
    """What a call result comes to: its structured content (or its content blocks, binary
    data left out) and its text; ToolFailed when the tool reported an error. Images,
    audio, binary resources and long text resources become files (`ToolOutput.files`)
    that the door of tool calls keeps as artifacts; the text says where each went."""
    texts: list[str] = []
    blocks: list[dict[str, Any]] = []
    files: list[ToolFile] = []
    for block in result.content:
        data = block.model_dump(mode="json", by_alias=True, exclude_none=True)
        kind = data.get("type", "")
        if kind == "text":
            texts.append(str(data.get("text", "")))
        elif kind in ("image", "audio"):
            encoded = str(data.pop("data", ""))
            texts.append(_as_file(files, kind, str(data.get("mimeType", "")), encoded, data))
        elif kind == "resource":
            texts.append(_resource(files, data.get("resource", {})))
        elif kind == "resource_link":
            texts.append(f"[link {data.get('name', '')}: {data.get('uri', '')}]")
        blocks.append(data)
    text = "\n".join(texts)
    if result.is_error:
        raise ToolFailed(text or "the tool reported an error")
    structured = result.structured_content
    if structured is not None:
        shown = text or json.dumps(structured, default=str)
        return ToolOutput(data=structured, text=shown, files=tuple(files))
    return ToolOutput(data={"content": blocks}, text=text, files=tuple(files))


def _as_file(
    files: list[ToolFile], name: str, media_type: str, encoded: str, block: dict[str, Any]
) -> str:
    """A base64 block added to `files` (its block marked so); what the text says of it."""
    try:
        content = base64.b64decode(encoded.encode("ascii"), validate=True)
    except (UnicodeEncodeError, binascii.Error):
        block["file"] = "not valid base64: dropped"
        return f"[{name} {media_type}: not valid base64, dropped]"
    files.append(ToolFile(name, media_type or "application/octet-stream", content))
    block["file"] = f"{len(content)} bytes, kept as a file"
    return f"[{name} {media_type}, {len(content)} bytes: see the file below]"


def _resource(files: list[ToolFile], resource: dict[str, Any]) -> str:
    """An embedded resource: a blob, or a long text, added to `files`; a short text
    inline. What the text says of it."""
    uri = str(resource.get("uri", ""))
    name = uri.rstrip("/").rpartition("/")[2] or "resource"
    media_type = str(resource.get("mimeType", ""))
    if "blob" in resource:
        return _as_file(files, name, media_type, str(resource.pop("blob")), resource)
    text = str(resource.get("text", ""))
    if len(text) <= INLINE_RESOURCE_CHARS:
        return text or f"[resource {uri}]"
    resource["text"] = f"[{len(text)} characters, kept as a file]"
    files.append(ToolFile(name, media_type or "text/plain", text.encode("utf-8", "replace")))
    return f"[resource {uri}, {len(text)} characters of {media_type or 'text'}: see the file below]"
