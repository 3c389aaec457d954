"""An MCP server that misbehaves, written with the same SDK agentd uses (stdio only).

    python -m tests.integration.mcp_hostile_server

Environment: NOTES_LOG (each listing of its tools is noted there), HOSTILE_REF_URL (the
remote `$ref` of `lookup`'s schema), HOSTILE_HELPER_PID (when set, the server starts a
helper process that shares its stdout and writes the helper's process id to this file),
NOTES_PID_FILE (where the server writes its own).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import Context, MCPServer


def _note(line: str) -> None:
    log = os.environ.get("NOTES_LOG")
    if log:
        with Path(log).open("a") as out:
            out.write(line + "\n")


class _Counting(MCPServer):
    """Notes each listing of its tools in NOTES_LOG ("list")."""

    async def _handle_list_tools(self, ctx: Any, params: Any) -> Any:
        _note("list")
        return await super()._handle_list_tools(ctx, params)


server = _Counting("hostile", log_level="WARNING")


def _text(**more: object) -> dict[str, object]:
    return {"type": "object", "properties": {"q": {"type": "string", **more}}, "required": ["q"]}


SCHEMAS: dict[str, dict[str, object]] = {
    # A reference to a URL: a validator that follows it fetches whatever the server says.
    "lookup": {
        "type": "object",
        "properties": {"q": {"$ref": os.environ.get("HOSTILE_REF_URL", "http://127.0.0.1:9/")}},
    },
    "nowhere": {"type": "object", "properties": {"q": {"$ref": "urn:nothing-here"}}},
    # Inside the schema, but pointing at nothing: found out only when a call is checked.
    "dangling": {"type": "object", "properties": {"q": {"$ref": "#/$defs/missing"}}},
    # Exponential for a backtracking engine ("a" * 40 + "!"), linear for RE2.
    "redos": _text(pattern="^(a|a)+$"),
    "backref": _text(pattern=r"^(a+)\1$"),  # RE2 has no back-references
}


def _answer(q: str) -> str:
    return f"ran with {q}"


for _name, _schema in SCHEMAS.items():
    server.add_tool(_answer, name=_name, description=f"A tool with a hostile schema ({_name}).")
    _tool = server._tool_manager.get_tool(_name)
    assert _tool is not None
    _tool.parameters = _schema


@server.tool()
def fine(q: str) -> str:
    """A tool with an ordinary schema."""
    return f"fine: {q}"


@server.tool()
async def storm(times: int, ctx: Context) -> str:
    """Say `times` times that the tool list changed."""
    for _ in range(times):
        await ctx.notify_tools_changed()  # the 2026 protocol: subscribers of listen
        with contextlib.suppress(Exception):  # the 2025 protocol: on the session
            await ctx.session.send_tool_list_changed()
    return f"said it {times} times"


def _helper(pid_file: str) -> None:
    """A process of the server's own (in its process group), holding its stdout open."""
    helper = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(600)"], stdout=sys.stdout
    )
    Path(pid_file).write_text(str(helper.pid))


def main() -> None:
    pid_file = os.environ.get("NOTES_PID_FILE")
    if pid_file:
        Path(pid_file).write_text(str(os.getpid()))
    helper_pid = os.environ.get("HOSTILE_HELPER_PID")
    if helper_pid:
        _helper(helper_pid)
    server.run("stdio")


if __name__ == "__main__":
    main()
