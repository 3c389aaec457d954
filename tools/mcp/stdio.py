"""Talking to an MCP server run as a child process, over its stdin and stdout, with bounds.

The SDK's own stdio transport keeps a whole line (one JSON-RPC message) in memory
however long it is. This one reads stdout in chunks and never holds more than
`max_message_bytes` of a message: a longer one is read past and dropped, and the call
it answered gets an error at once (its id is found in the message's first or last
bytes, where JSON-RPC writers put it). The server's stderr is logged line by line, a
bounded number of lines per interval. On leaving, the server's stdin is closed, it gets
two seconds to exit, then its process group is terminated (and killed two seconds
later), whether or not the server itself is still there: helpers it started go with it.
`on_end` is called when the server's process exits or its stdout ends.
"""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field

import anyio
import mcp_types as types
import structlog
from anyio.abc import Process
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.client.stdio import get_default_environment
from mcp.os.posix.utilities import terminate_posix_process_tree
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from core.secrets import scrub
from tools.toolsets.config import StdioServer

log = structlog.get_logger(__name__)

CHUNK = 64 * 1024
EDGE = 256
"""Bytes kept of each end of a message too long to read (to find its id)."""
RESULT_TOO_LARGE = -32099
"""The JSON-RPC error code agentd gives a call whose answer was too long to read."""
STDERR_LINES = 50
STDERR_WINDOW_SECONDS = 10.0
STDERR_LINE_CHARS = 1000
EXIT_GRACE_SECONDS = 2.0

_ID_FIRST = re.compile(
    rb'^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"[^"\\]{1,128}")'
)
_ID_LAST = re.compile(
    rb'"id"\s*:\s*(-?\d+|"[^"\\]{1,128}")\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$'
)

Incoming = SessionMessage | Exception


@dataclass
class _Oversized:
    """A message being read past: its first bytes, its last bytes and its length."""

    head: bytes
    tail: bytearray = field(default_factory=bytearray)
    length: int = 0

    def feed(self, piece: bytes | bytearray) -> None:
        self.length += len(piece)
        self.tail += piece[-EDGE:]
        del self.tail[:-EDGE]

    def answer(self, limit: int) -> SessionMessage | None:
        """The error for the call the message answered, when its id can be found."""
        found = _ID_FIRST.match(self.head) or _ID_LAST.search(bytes(self.tail))
        if found is None:
            return None
        raw = found.group(1).decode()
        request_id: int | str = int(raw) if raw[0] != '"' else raw.strip('"')
        message = (
            f"the MCP server's answer is over {limit:,} bytes "
            "(AGENTD_TOOLSETS_MAX_RESULT_BYTES); it was dropped unread"
        )
        error = types.ErrorData(code=RESULT_TOO_LARGE, message=message)
        return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error))


def _parse(line: bytes) -> Incoming:
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except (ValidationError, ValueError) as error:
        return error


async def _read_stdout(
    process: Process, deliver: MemoryObjectSendStream[Incoming], limit: int, toolset: str
) -> None:
    """Split stdout into messages, never holding more than `limit` bytes of one."""
    assert process.stdout is not None
    buffer = bytearray()
    skipping: _Oversized | None = None
    async with deliver:
        with suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            async for chunk in process.stdout:
                start = 0
                while True:
                    end = chunk.find(b"\n", start)
                    piece = chunk[start : len(chunk) if end == -1 else end]
                    if skipping is not None:
                        skipping.feed(piece)
                    else:
                        buffer += piece
                        if len(buffer) > limit:
                            skipping = _Oversized(bytes(buffer[:EDGE]))
                            skipping.feed(buffer)
                            buffer.clear()
                    if end == -1:
                        break
                    start = end + 1
                    if skipping is not None:
                        answer = skipping.answer(limit)
                        log.warning(
                            "mcp server message over the size limit dropped",
                            toolset=toolset,
                            bytes=skipping.length,
                            answered=answer is not None,
                        )
                        skipping = None
                        if answer is not None:
                            await deliver.send(answer)
                    elif buffer.strip():
                        await deliver.send(_parse(bytes(buffer)))
                    buffer.clear()


async def _write_stdin(
    process: Process, outgoing: MemoryObjectReceiveStream[SessionMessage]
) -> None:
    assert process.stdin is not None
    async with outgoing:
        with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            async for message in outgoing:
                data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                await process.stdin.send((data + "\n").encode())


clock = time.monotonic
"""What the stderr windows are timed by (a test holds it still to make one window)."""


async def _log_stderr(process: Process, toolset: str) -> None:
    """Log the server's stderr, at most STDERR_LINES lines per STDERR_WINDOW_SECONDS."""
    assert process.stderr is not None
    window, lines, dropped = clock(), 0, 0
    pending = b""
    with suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
        async for chunk in process.stderr:
            *complete, pending = (pending + chunk).split(b"\n")
            pending = pending[-STDERR_LINE_CHARS:]
            for raw in complete:
                now = clock()
                if now - window > STDERR_WINDOW_SECONDS:
                    if dropped:
                        log.info(
                            "mcp server stderr lines not logged", toolset=toolset, lines=dropped
                        )
                    window, lines, dropped = now, 0, 0
                lines += 1
                if lines > STDERR_LINES:
                    dropped += 1
                    continue
                text = raw[:STDERR_LINE_CHARS].decode("utf-8", errors="replace").rstrip()
                if text:
                    log.info("mcp server stderr", toolset=toolset, line=scrub(text))


async def _stop(process: Process) -> None:
    """Close stdin, give the server EXIT_GRACE_SECONDS, then end its process group: always,
    for a helper the server started may outlive it (the group is reached by its id even
    once the server itself is gone)."""
    assert process.stdin is not None
    with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdin.aclose()
    with anyio.move_on_after(EXIT_GRACE_SECONDS):
        await process.wait()
    await terminate_posix_process_tree(process, EXIT_GRACE_SECONDS)
    if process.returncode is None:
        with anyio.move_on_after(EXIT_GRACE_SECONDS):
            await process.wait()


async def _watch_exit(process: Process, on_end: Callable[[], None]) -> None:
    """Say the server ended as soon as its process exits (a helper of its own may hold
    stdout open long after)."""
    await process.wait()
    on_end()


@asynccontextmanager
async def stdio_transport(
    server: StdioServer, toolset: str, limit: int, on_end: Callable[[], None]
) -> AsyncIterator[
    tuple[MemoryObjectReceiveStream[Incoming], MemoryObjectSendStream[SessionMessage]]
]:
    """Start the server; yield the (read, write) message streams a `ClientSession` uses."""
    process = await anyio.open_process(
        [server.command, *server.args],
        env=get_default_environment() | dict(server.env),
        cwd=server.cwd,
        start_new_session=True,
    )
    incoming_send, incoming = anyio.create_memory_object_stream[Incoming](0)
    outgoing, outgoing_receive = anyio.create_memory_object_stream[SessionMessage](0)

    async def read() -> None:
        try:
            await _read_stdout(process, incoming_send, limit, toolset)
        finally:
            on_end()

    stopped = False
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(read)
            group.start_soon(_write_stdin, process, outgoing_receive)
            group.start_soon(_log_stderr, process, toolset)
            group.start_soon(_watch_exit, process, on_end)
            try:
                yield incoming, outgoing
            finally:
                with anyio.CancelScope(shield=True):
                    outgoing.close()
                    await _stop(process)
                    stopped = True
                group.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            for stream in (incoming, incoming_send, outgoing, outgoing_receive):
                await stream.aclose()
            if not stopped:  # cancelled before the group ran
                await _stop(process)
            with anyio.move_on_after(EXIT_GRACE_SECONDS):  # a process that outlived a kill
                await process.aclose()
