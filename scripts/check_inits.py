"""Fail when a package's `__init__.py` defines a function or a class (part of `make lint`).

    python scripts/check_inits.py             # every tracked first-party __init__.py
    python scripts/check_inits.py PATH...     # these files, or every __init__.py under
                                              # these folders

A package's `__init__.py` says what the package holds (its docstring) and may re-export
names from its modules; what it defines lives in a module of its own, where "where is
X?" has one answer and importing one module of the package runs no other code. A
`def`, `async def`, `class` or `lambda` anywhere in it is an offence. tests/ and
generated code are exempt, as for scripts/check_sizes.py. Prints one line per offence
and exits 1 if there is any.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

EXCLUDED = (
    "tests/",
    "generated/",
    "clients/python/agentd/",
    "clients/python/build/",
    ".venv/",
    "node_modules/",
)
"""Path prefixes (relative to the repository root, with "/" separators) not checked."""


def tracked_inits(root: Path) -> list[str]:
    """The tracked first-party `__init__.py` files under root, relative to it."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--", "*__init__.py"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    names = (name for name in listed.split("\0") if name.endswith("__init__.py"))
    return sorted(name for name in names if not name.startswith(EXCLUDED))


def _definitions(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Every function, class and lambda in tree: its line and what it is."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node.lineno, f"function {node.name}"
        elif isinstance(node, ast.ClassDef):
            yield node.lineno, f"class {node.name}"
        elif isinstance(node, ast.Lambda):
            yield node.lineno, "a lambda"


def check_source(name: str, source: str) -> list[str]:
    """The offences of one `__init__.py`'s source; `name` names it in the messages."""
    found = sorted(_definitions(ast.parse(source, filename=name)))
    return [
        f"{name}:{line}: defines {what}: move it to a module of the package "
        "(the package may re-export it)"
        for line, what in found
    ]


def _given(paths: Sequence[str]) -> list[Path]:
    """The files named, and every `__init__.py` under the folders named."""
    files: list[Path] = []
    for path in map(Path, paths):
        files.extend(sorted(path.rglob("__init__.py")) if path.is_dir() else [path])
    return files


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments:
        named = [(str(path), path) for path in _given(arguments)]
    else:
        named = [(name, ROOT / name) for name in tracked_inits(ROOT)]
    offences = [
        offence
        for name, path in named
        for offence in check_source(name, path.read_text(encoding="utf-8"))
    ]
    for offence in offences:
        sys.stdout.write(f"{offence}\n")
    if offences:
        sys.stdout.write(f"check_inits: {len(offences)} definition(s) in package __init__ files\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
