"""Check that no module reaches into a running task's context for more than it needs.

    python scripts/check_run_reads.py             # every tracked first-party .py file
    python scripts/check_run_reads.py FILE...     # only these files

A run (`agent.running.run.TaskRun`) is cut by what it holds: its task, its limits and
bounds, its transcript, its standing, its tool calls, its team. A module that reads more
than 8 distinct attributes of it (as the engine names it: `run`, `self.run`,
`self._run`) holds too much of the run in its head: it should take the part it works
on. The run's own module is exempt, as are tests and generated code. Prints one line
per offence and exits 1 if there is any.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

MAX_RUN_READS = 8
ROOT = Path(__file__).resolve().parents[1]
EXEMPT = ("agent/running/run.py",)
"""The run's own module."""
EXCLUDED = ("tests/", "generated/", "clients/python/agentd/", "clients/python/build/")


def _is_run(node: ast.expr) -> bool:
    """Whether `node` names the run: `run`, `self.run` or `self._run`."""
    if isinstance(node, ast.Name):
        return node.id == "run"
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
        and node.attr in ("run", "_run")
    )


def run_reads(source: str) -> set[str]:
    """The distinct attributes of the run a module's source reads."""
    tree = ast.parse(source)
    return {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and _is_run(node.value)
    }


def check_source(relative: str, source: str) -> str | None:
    """The offence of one module, or None."""
    read = run_reads(source)
    if len(read) <= MAX_RUN_READS:
        return None
    return (
        f"{relative}: reads {len(read)} attributes of the run (limit {MAX_RUN_READS}): "
        + ", ".join(sorted(read))
    )


def first_party_files(root: Path) -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--", "*.py"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return sorted(
        name
        for name in listed.split("\0")
        if name and not name.startswith(EXCLUDED) and name not in EXEMPT
    )


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    root = Path.cwd() if arguments else ROOT
    offences = [
        found
        for relative in arguments or first_party_files(ROOT)
        if (found := check_source(relative, (root / relative).read_text(encoding="utf-8")))
    ]
    for offence in offences:
        sys.stdout.write(f"{offence}\n")
    return 1 if offences else 0


if __name__ == "__main__":
    sys.exit(main())
