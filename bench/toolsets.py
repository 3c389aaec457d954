"""MCP toolsets: what calling a tool of an MCP server costs next to a built-in, in one run.

One agentd in this process, with one toolset: the tests' notes server (written with the
`mcp` SDK) run over stdio. The same client calls `calculator` (built in) and
`notes.search` (a JSON-RPC round trip to the child process) alternately in rounds, so
both see the same machine load; the ratio of their median latencies is what the MCP
hop adds. Then one call of a tool whose answer is 50 MB, with a 1 MB limit: the peak of
memory the process allocated during it (tracemalloc), against the answer's size.
Loops are bounded in count and time.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import yaml

from agentd_client.client import AgentClient
from server import logs
from server.app import AgentdServer
from server.settings import Settings

ROUNDS = 300
TIME_CAP_SECONDS = 30.0
ROOT = Path(__file__).resolve().parent.parent


def _settings(folder: Path) -> Settings:
    notes = {
        "mcp": {
            "command": sys.executable,
            "args": ["-m", "tests.integration.mcp_notes_server", "stdio"],
            "cwd": str(ROOT),
        },
        "level": "read",
    }
    path = folder / "toolsets.yaml"
    path.write_text(yaml.safe_dump({"toolsets": {"notes": notes}}))
    return Settings(
        address="127.0.0.1:0",
        workspace_dir=folder / "workspace",
        database_url=f"sqlite+aiosqlite:///{folder / 'agentd.db'}",
        auth="off",
        tool_permission="read",
        rate_limits="",
        tenant_rate_limits="",
        metrics_address="",
        toolsets_file=path,
        toolsets_ping_seconds=0,
        toolsets_max_result_bytes=1_000_000,
    )


async def _latencies(client: AgentClient) -> tuple[list[float], list[float]]:
    built_in: list[float] = []
    mcp: list[float] = []
    deadline = time.monotonic() + TIME_CAP_SECONDS
    for _ in range(ROUNDS):
        if time.monotonic() > deadline:
            break
        for name, args, into in (
            ("calculator", {"expression": "1+1"}, built_in),
            ("notes.search", {"query": "tea"}, mcp),
        ):
            started = time.perf_counter()
            await client.call_tool(name, args)
            into.append((time.perf_counter() - started) * 1000)
    return built_in, mcp


async def main() -> None:
    logs.configure("warning", "console")
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        server = await AgentdServer.start(_settings(Path(folder)))
        ready = time.perf_counter() - started
        try:
            async with AgentClient(f"127.0.0.1:{server.port}", timeout=30) as client:
                await _latencies(client)  # warm-up round trip of both paths
                built_in, mcp = await _latencies(client)
                tracemalloc.start()
                result = await client.call_tool("notes.big", {"megabytes": 50})
                peak = tracemalloc.get_traced_memory()[1]
                tracemalloc.stop()
        finally:
            await server.shutdown(grace=0)
    b, m = statistics.median(built_in), statistics.median(mcp)
    print(f"MCP toolsets (one stdio server, {len(mcp)} calls of each tool, alternating)")
    print(f"  start-up with the server listed   {ready:.2f} s")
    print(f"  CallTool calculator (built in)     median {b:.2f} ms")
    print(f"  CallTool notes.search (MCP stdio)  median {m:.2f} ms  ({m / b:.2f}x the built-in)")
    refused = result.error.message[:60]
    print(f"  a 50 MB answer, 1 MB limit: refused ({refused}...)")
    print(f"    peak allocated during the call   {peak / 1e6:.1f} MB ({peak / 50e6:.1%} of 50 MB)")


if __name__ == "__main__":
    asyncio.run(main())
