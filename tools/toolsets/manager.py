"""The toolsets of AGENTD_TOOLSETS_FILE, kept in the registry's catalog as the file and
the servers change.

`start` reads the file, starts a connection (`McpConnection`, each in its own task) for
every MCP toolset and registers every declared HTTP tool, then waits a bounded time for
each server's first connection, so that a fresh server lists its tools from the start.
`watch` reads the file again when it changes: a toolset that is new is started, one that
is gone has its tools removed, and one that changed has its tools listed anew. A changed
MCP toolset whose `mcp:` is the same keeps its connection (and its server); one whose
`mcp:` changed gets a new connection, which takes over once it had its first try
(bounded), while the old one stops only when the calls it is running are done (each
bounded by its timeout). A removed toolset's connection stops the same way. A toolset
whose new definition is broken keeps its last good one, and a file that cannot be read
at all changes nothing; every problem is logged with the file's path and the field. A
server's tools are replaced whenever it lists them (at connection and when it says its
list changed); while it is down they stay listed and answer TOOL_UNAVAILABLE. A running
task calls its tools as it was given them (`ToolRegistry.call(spec=...)`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections import Counter
from collections.abc import Collection, Sequence
from pathlib import Path

import mcp_types as types
import structlog
import yaml

from core.watching import FileProblem, keep_reloading
from records.tools.model import Tool
from tools.catalog import ToolCatalog
from tools.mcp import tool as mcp_tool
from tools.mcp.connection import ConnectionLimits, McpConnection
from tools.toolsets import http_tool
from tools.toolsets.config import BUILTIN_CATEGORIES, ToolsetConfig
from tools.toolsets.parsing import parse_file
from tools.toolsets.yaml_file import TooLargeError, load_yaml

log = structlog.get_logger(__name__)

MAX_FILE_BYTES = 1024 * 1024
Parsed = tuple[dict[str, ToolsetConfig], list[FileProblem], set[str]]
DRAIN_MARGIN_SECONDS = 5.0
"""How long past its calls' longest timeout a retiring connection is waited for."""


class Toolsets:
    """The toolsets in force, their connections, and what is wrong with the file."""

    def __init__(
        self,
        path: Path,
        catalog: ToolCatalog,
        limits: ConnectionLimits,
        reserved: Collection[str] = (),
    ) -> None:
        self.path = path
        self.problems: list[FileProblem] = []
        """What is wrong with the file and the servers' tools now."""
        self._catalog = catalog
        self._limits = limits
        self._reserved = frozenset(reserved)
        self._categories = BUILTIN_CATEGORIES | {
            tool.spec.category for tool in catalog.ordered() if not tool.spec.toolset
        }
        self._configs: dict[str, ToolsetConfig] = {}
        self._connections: dict[str, McpConnection] = {}
        self._retiring: dict[McpConnection, asyncio.Task[None]] = {}
        """Connections replaced or removed, stopping once their calls are done."""
        self._file_problems: list[FileProblem] = []
        self._tool_problems: dict[str, list[FileProblem]] = {}
        self._logged: set[FileProblem] = set()
        self._digest = ""
        self._lock = asyncio.Lock()

    @property
    def names(self) -> list[str]:
        """The toolsets in force, by name."""
        return sorted(self._configs)

    def connection(self, toolset: str) -> McpConnection | None:
        return self._connections.get(toolset)

    async def start(self, wait_seconds: float) -> None:
        """Read the file and start every toolset; wait up to `wait_seconds` for each MCP
        server's first connection attempt."""
        await self.reload()
        attempts = [c.first_attempt() for c in self._connections.values()]
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(wait_seconds):
                await asyncio.gather(*attempts)

    async def watch(self, every_seconds: float) -> None:
        """Read the file again whenever it changed, until cancelled."""
        await keep_reloading(
            self.reload,
            every_seconds,
            changed="toolsets file read again",
            failed=f"could not read the toolsets file {self.path}",
            details=lambda: {"path": str(self.path), "toolsets": self.names},
        )

    async def reload(self) -> bool:
        """Apply the file if it changed since the last time; whether it had."""
        async with self._lock:
            try:
                read = await asyncio.to_thread(self._read, self._digest)
            except (OSError, ValueError) as error:
                return self._file_problem("(file)", f"cannot be read: {error}")
            if read is None:
                return False
            self._digest, parsed = read
            if isinstance(parsed, str):
                return self._file_problem("(file)", parsed)
            found, problems, refused = parsed
            for name in refused & set(self._configs):  # keeps its last good definition
                found[name] = self._configs[name]
            await self._apply(found)
            self._file_problems = problems
            self._report()
            return True

    async def close(self) -> None:
        """Stop every connection (and every stdio server), retiring ones included."""
        connections = [*self._connections.values(), *self._retiring]
        self._connections.clear()
        for drain in self._retiring.values():
            drain.cancel()
        await asyncio.gather(*(c.stop() for c in connections), return_exceptions=True)
        await asyncio.gather(*self._retiring.values(), return_exceptions=True)

    def _read(self, known: str) -> tuple[str, Parsed | str] | None:
        """In a thread (reading and parsing take time the event loop does not have): the
        file's digest and its toolsets, or why it cannot be used at all; None when its
        digest is still `known`."""
        if self.path.stat().st_size > MAX_FILE_BYTES:
            raise ValueError(f"it is over {MAX_FILE_BYTES} bytes")
        raw = self.path.read_bytes()
        digest = hashlib.sha256(raw).hexdigest()
        if digest == known:
            return None
        try:
            data = load_yaml(raw.decode("utf-8"))
        except TooLargeError as error:
            return digest, f"cannot be used: {error}"
        except (UnicodeDecodeError, yaml.YAMLError) as error:
            return digest, f"is not YAML: {error}"
        return digest, parse_file(data, str(self.path), self._reserved, self._categories)

    def _file_problem(self, field: str, problem: str) -> bool:
        """The whole file is unusable: nothing changes, and it says so once."""
        found = [FileProblem(str(self.path), field, problem)]
        if found == self._file_problems:
            return False
        self._file_problems = found
        self._digest = ""
        self._report()
        return True

    def _report(self) -> None:
        self.problems = [
            *self._file_problems,
            *(p for ps in self._tool_problems.values() for p in ps),
        ]
        logged, self._logged = self._logged, set(self.problems)
        for problem in self.problems:
            if problem in logged:
                continue  # said when it came up; a problem is logged once while it lasts
            say = log.warning if problem.warning else log.error
            say(
                "toolsets file: " + ("warning" if problem.warning else "refused"),
                path=problem.path,
                field=problem.field,
                problem=problem.problem,
            )

    async def _apply(self, desired: dict[str, ToolsetConfig]) -> None:
        for name in sorted(set(self._configs) - set(desired)):
            self._remove(name)
        for name, config in sorted(desired.items()):
            before = self._configs.get(name)
            if before == config:
                continue  # unchanged: its connection and tools stay as they are
            if before is not None and before.mcp is not None and before.mcp == config.mcp:
                self._reconfigure(config)
            elif before is not None and before.mcp is not None and config.mcp is not None:
                await self._reconnect(config)
            else:
                if before is not None:
                    self._remove(name)
                self._add(config)

    def _add(self, config: ToolsetConfig) -> None:
        self._configs[config.name] = config
        self._tool_problems.pop(config.name, None)
        if config.mcp is None:
            tools: list[Tool] = []
            for declared in config.http_tools:
                try:
                    spec = http_tool.spec_of(config, declared)
                except ValueError as error:
                    self._tool_refused(config.name, f"tools.{declared.name}", str(error))
                    continue
                tools.append(
                    http_tool.HttpTool(
                        spec, declared, config.allowed_networks, self._limits.max_message_bytes
                    )
                )
            self._catalog.replace_toolset(config.name, tools)
            return
        connection = self._connection(config)
        self._connections[config.name] = connection
        connection.start()

    def _connection(self, config: ToolsetConfig) -> McpConnection:
        connection = McpConnection(
            config, self._limits, lambda listed: self._publish(connection, listed)
        )
        return connection

    def _reconfigure(self, config: ToolsetConfig) -> None:
        """Same `mcp:`, other settings: the connection stays, its tools are listed anew."""
        self._configs[config.name] = config
        connection = self._connections[config.name]
        connection.reconfigure(config)
        if connection.listed is not None:
            self._publish(connection, connection.listed)

    async def _reconnect(self, config: ToolsetConfig) -> None:
        """Another `mcp:`: a new connection takes over once it had its first try (bounded),
        and the old one stops when the calls it is running are done."""
        old = self._connections[config.name]
        new = self._connection(config)
        new.start()
        try:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._limits.connect_seconds):
                    await new.first_attempt()
        except BaseException:
            await new.stop()
            raise
        longest = self._longest_timeout(config.name)
        self._configs[config.name] = config
        self._connections[config.name] = new
        listed = new.listed if new.listed is not None else old.listed
        if listed is not None:  # a server still down: its old tools, unavailable
            self._publish(new, listed)
        self._retire(old, longest)

    def _remove(self, name: str) -> None:
        longest = self._longest_timeout(name)
        self._catalog.remove_toolset(name)
        self._configs.pop(name, None)
        self._tool_problems.pop(name, None)
        connection = self._connections.pop(name, None)
        if connection is not None:
            self._retire(connection, longest)

    def _longest_timeout(self, toolset: str) -> float:
        tools = [self._catalog.get(name) for name in self._catalog.toolset(toolset)]
        return max((t.spec.timeout_seconds for t in tools if t is not None), default=0.0)

    def _retire(self, connection: McpConnection, longest: float) -> None:
        """Stop a connection no longer in force once the calls it is running are done
        (each ends within its timeout, at most `longest`)."""

        async def drain() -> None:
            await connection.drained(longest + DRAIN_MARGIN_SECONDS)
            await connection.stop()

        task = asyncio.create_task(drain(), name=f"agentd-mcp-{connection.name}-retiring")
        self._retiring[connection] = task
        task.add_done_callback(lambda _: self._retiring.pop(connection, None))

    def _tool_refused(self, toolset: str, field: str, problem: str) -> None:
        where = f"toolsets.{toolset}.{field}".rstrip(".")
        found = FileProblem(str(self.path), where, problem)
        self._tool_problems.setdefault(toolset, []).append(found)

    def _publish(self, connection: McpConnection, listed: Sequence[types.Tool]) -> None:
        """A server listed its tools: they replace the toolset's (those that can be used)."""
        config = connection.toolset
        if self._connections.get(config.name) is not connection:
            return  # a connection being stopped
        before = self._tool_problems.pop(config.name, [])
        counts = Counter(tool.name for tool in listed)
        tools: list[Tool] = []
        for tool in listed:
            if counts[tool.name] > 1:
                twice = f"its server lists {tool.name!r} {counts[tool.name]} times; none is offered"
                self._tool_refused(config.name, "", twice)
                counts[tool.name] = 0
                continue
            if counts[tool.name] == 0:
                continue
            try:
                spec = mcp_tool.spec_of(config, tool)
            except ValueError as error:
                self._tool_refused(config.name, "", f"its server's tool {tool.name!r}: {error}")
                continue
            tools.append(mcp_tool.McpTool(spec, tool.name, connection))
        for name in sorted(set(config.overrides) - set(counts)):
            self._tool_refused(config.name, f"tools.{name}", "its server has no tool of this name")
        try:
            self._catalog.replace_toolset(config.name, tools)
        except ValueError as error:  # a schema the validator cannot compile after all
            self._tool_refused(config.name, "", f"its tools cannot be offered: {error}")
            self._catalog.remove_toolset(config.name)
        log.info("toolset tools listed", toolset=config.name, tools=[t.spec.name for t in tools])
        if self._tool_problems.get(config.name, []) != before:
            self._report()
