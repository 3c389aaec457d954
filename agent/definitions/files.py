"""Agents defined in a directory of YAML files (AGENTD_AGENTS_DIR), one agent per file.

Files are read at start and read again when they change (checked every few
seconds). A file that cannot be used is reported once per change with its path
and the field at fault, and never takes the others down: the agent it defined
keeps its last good definition until the file is fixed (or removed). Two files
with the same agent id are both refused. File agents serve every tenant.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from pathlib import Path

import structlog
import yaml

from agent.guardrails import declarations as guardrails
from agent.teams.graph import find_cycle, show
from core.watching import FileProblem, keep_reloading
from records.agents.definition import AgentDefinition, AgentInvalidError, parse_agent

log = structlog.get_logger(__name__)

MAX_FILE_BYTES = 256 * 1024
SUFFIXES = (".yaml", ".yml")


class AgentFiles:
    """The agents of one directory, as last read."""

    def __init__(self, folder: Path, models: Collection[str] = ()) -> None:
        self.folder = folder
        self._models = tuple(models)
        """The models its agents may name (AGENTD_AGENT_MODELS); empty: any."""
        self.problems: list[FileProblem] = []
        """What is wrong with the folder's files now, one entry per problem."""
        self._read_problems: dict[Path, list[FileProblem]] = {}
        self._seen: dict[Path, tuple[float, int]] = {}
        self._by_file: dict[Path, AgentDefinition] = {}
        self._agents: dict[str, AgentDefinition] = {}

    def get(self, agent_id: str) -> AgentDefinition | None:
        return self._agents.get(agent_id)

    def defines(self, agent_id: str) -> bool:
        """Whether a file defines the agent now."""
        return agent_id in self._agents

    def all(self) -> list[AgentDefinition]:
        return sorted(self._agents.values(), key=lambda a: a.agent_id)

    def load(self) -> bool:
        """Read what changed since the last load; whether anything did."""
        files = self._files()
        current = {path: (stat.st_mtime, stat.st_size) for path, stat in files.items()}
        if current == self._seen:
            return False
        for path in current:
            if self._seen.get(path) != current[path]:
                self._read_problems.pop(path, None)
                found = self._read(path)
                if found:
                    self._read_problems[path] = found
        for gone in set(self._by_file) - set(current):
            del self._by_file[gone]
        for gone in set(self._read_problems) - set(current):
            del self._read_problems[gone]
        self._seen = current
        self.problems = [*(p for ps in self._read_problems.values() for p in ps), *self._index()]
        for problem in self.problems:
            log.error(
                "agent file refused",
                path=problem.path,
                field=problem.field,
                problem=problem.problem,
            )
        return True

    def _files(self) -> dict[Path, os.stat_result]:
        if not self.folder.is_dir():
            return {}
        return {
            path: path.stat()
            for path in sorted(self.folder.iterdir())
            if path.suffix in SUFFIXES and path.is_file()
        }

    def _read(self, path: Path) -> list[FileProblem]:
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                return [FileProblem(str(path), "(file)", f"over {MAX_FILE_BYTES} bytes")]
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
            agent = parse_agent(data, str(path), self._models)
            _, problems = guardrails.parse(list(agent.guardrails))
            if problems:
                return [FileProblem(str(path), field, problem) for field, problem in problems]
            self._by_file[path] = agent
        except AgentInvalidError as invalid:
            return [FileProblem(str(path), invalid.field, invalid.problem)]
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
            return [FileProblem(str(path), "(file)", f"cannot be read as YAML: {error}")]
        return []

    def _index(self) -> list[FileProblem]:
        """Agents by id; ids defined by two files are refused in both."""
        by_id: dict[str, list[Path]] = {}
        for path, agent in self._by_file.items():
            by_id.setdefault(agent.agent_id, []).append(path)
        problems: list[FileProblem] = []
        agents: dict[str, AgentDefinition] = {}
        for agent_id, paths in by_id.items():
            if len(paths) > 1:
                names = ", ".join(str(p) for p in paths)
                problems.extend(
                    FileProblem(str(p), "id", f"{agent_id!r} is defined twice ({names})")
                    for p in paths
                )
            else:
                agents[agent_id] = self._by_file[paths[0]]
        while (cycle := find_cycle({i: a.team for i, a in agents.items()})) is not None:
            for agent_id in dict.fromkeys(cycle):  # every agent of the cycle is refused
                problem = f"delegation cycle {show(cycle)} (agents may not delegate in a circle)"
                problems.append(FileProblem(str(self._path_of(agent_id)), "delegates", problem))
                agents.pop(agent_id, None)
        self._agents = agents
        return problems

    def _path_of(self, agent_id: str) -> Path:
        return next(p for p, a in self._by_file.items() if a.agent_id == agent_id)

    async def watch(self, every_seconds: float = 2.0) -> None:
        """Read the folder again whenever it changed, until cancelled."""

        async def reload() -> bool:
            return self.load()

        await keep_reloading(
            reload,
            every_seconds,
            changed="agent files read again",
            failed="could not read the agent files",
            details=lambda: {"agents": len(self._agents)},
        )
