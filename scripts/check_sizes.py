"""Check the house size limits on first-party Python code.

    python scripts/check_sizes.py             # every tracked first-party .py file
    python scripts/check_sizes.py FILE...     # only these files

No module may be over 400 lines, and no function or method over 60 lines
(counted from the `def` line to its last line; decorators do not count). No package
may hold more than 15 modules of its own (its `__init__.py` and subpackages not
counted; a migrations `versions/` folder is exempt), and `agent/` no more than 10 loose
modules at its top: the engine lives in wings.
tests/ and generated code (generated/, clients/python/agentd/,
clients/python/build/, .venv, node_modules) are exempt. Prints one line per
offence and exits 1 if there is any.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
MAX_PACKAGE_MODULES = 15
MAX_LOOSE_MODULES = {"agent": 10}
"""Packages held to a tighter count of their own modules."""

ROOT = Path(__file__).resolve().parents[1]

# Path prefixes (relative to the repository root, with "/" separators) that are not checked.
EXCLUDED = (
    "tests/",
    "generated/",
    "clients/python/agentd/",
    "clients/python/build/",
    ".venv/",
    "node_modules/",
)


@dataclass(frozen=True)
class Offence:
    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


def excluded(relative: str) -> bool:
    parts = relative.split("/")
    return relative.startswith(EXCLUDED) or ".venv" in parts or "node_modules" in parts


def first_party_files(root: Path) -> list[str]:
    """The tracked .py files under root that the limits apply to, relative to root."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--", "*.py"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return sorted(name for name in listed.split("\0") if name and not excluded(name))


def _functions(
    node: ast.AST, prefix: str = ""
) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Every function and method under node, with its qualified name (Class.method, f.inner)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            name = f"{prefix}{child.name}"
            yield name, child
            yield from _functions(child, f"{name}.")
        elif isinstance(child, ast.ClassDef):
            yield from _functions(child, f"{prefix}{child.name}.")
        else:
            yield from _functions(child, prefix)


def check_source(relative: str, source: str) -> list[Offence]:
    """The size offences in one module's source; relative names it in the messages."""
    offences: list[Offence] = []
    lines = source.count("\n") + (0 if source.endswith("\n") or not source else 1)
    if lines > MAX_MODULE_LINES:
        offences.append(Offence(relative, 1, f"module is {lines} lines (limit {MAX_MODULE_LINES})"))
    tree = ast.parse(source, filename=relative)
    for name, function in _functions(tree):
        end = function.end_lineno if function.end_lineno is not None else function.lineno
        length = end - function.lineno + 1
        if length > MAX_FUNCTION_LINES:
            offences.append(
                Offence(
                    relative,
                    function.lineno,
                    f"function {name} is {length} lines (limit {MAX_FUNCTION_LINES})",
                )
            )
    return offences


def check_packages(relatives: Sequence[str]) -> list[Offence]:
    """Packages holding more modules of their own than the house allows."""
    counts: dict[str, int] = {}
    for relative in relatives:
        folder, _, name = relative.rpartition("/")
        if name == "__init__.py" or not folder or folder.endswith("/versions"):
            continue
        counts[folder] = counts.get(folder, 0) + 1
    offences = []
    for folder, count in sorted(counts.items()):
        limit = MAX_LOOSE_MODULES.get(folder, MAX_PACKAGE_MODULES)
        if count > limit:
            offences.append(
                Offence(f"{folder}/", 1, f"package holds {count} modules (limit {limit})")
            )
    return offences


def check_files(root: Path, relatives: Sequence[str]) -> list[Offence]:
    """The size offences in these files, named as given (relative to root, or absolute)."""
    offences: list[Offence] = []
    for relative in relatives:
        source = (root / relative).read_text(encoding="utf-8")
        offences.extend(check_source(relative, source))
    return offences


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments:
        offences = check_files(Path.cwd(), arguments)
    else:
        files = first_party_files(ROOT)
        offences = check_files(ROOT, files) + check_packages(files)
    for offence in offences:
        sys.stdout.write(f"{offence}\n")
    if offences:
        sys.stdout.write(
            f"check_sizes: {len(offences)} offence(s): modules may have at most "
            f"{MAX_MODULE_LINES} lines, functions at most {MAX_FUNCTION_LINES}, packages at "
            f"most {MAX_PACKAGE_MODULES} modules ({MAX_LOOSE_MODULES} for these)\n"
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
