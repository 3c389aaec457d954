"""Check the house size limits on first-party Python code.

    python scripts/check_sizes.py             # every tracked first-party .py file
    python scripts/check_sizes.py FILE...     # only these files

No module may be over 400 lines, and no function or method over 60 lines
(counted from the `def` line to its last line; decorators do not count). No package
may hold more than 15 modules of its own (its `__init__.py` and subpackages not
counted; a migrations `versions/` folder is exempt), and `agent/` no more than 10 loose
modules at its top: the engine lives in wings. No dataclass may hold more than 15 fields
(`records/` is exempt: its dataclasses are the stored and wire forms, field for field),
and no line may carry a `# fmt: skip` marker: code is laid out by ruff, and a module that
grows too long is split where it divides, not packed.
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
MAX_DATACLASS_FIELDS = 15
FIELDS_EXEMPT = ("records/",)
"""Where dataclasses may hold more fields: the stored and wire forms."""
FORMAT_MARKER = "# fmt: " + "skip"  # spelled in two, so this file does not hold one

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


def _is_dataclass(node: ast.ClassDef) -> bool:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name == "dataclass":
            return True
    return False


def _fields(node: ast.ClassDef) -> int:
    """The fields a dataclass declares (annotated names that are not ClassVar)."""
    return sum(
        isinstance(statement, ast.AnnAssign)
        and isinstance(statement.target, ast.Name)
        and "ClassVar" not in ast.unparse(statement.annotation)
        for statement in node.body
    )


def check_shapes(relative: str, source: str, tree: ast.Module) -> list[Offence]:
    """Dataclasses over their count of fields, and lines packed by hand (format markers)."""
    offences = [
        Offence(relative, number, "a format marker: let ruff lay the code out")
        for number, line in enumerate(source.splitlines(), start=1)
        if line.rstrip().endswith(FORMAT_MARKER)
    ]
    if relative.startswith(FIELDS_EXEMPT):
        return offences
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and _is_dataclass(node):
            count = _fields(node)
            if count > MAX_DATACLASS_FIELDS:
                message = f"dataclass {node.name} has {count} fields (limit {MAX_DATACLASS_FIELDS})"
                offences.append(Offence(relative, node.lineno, message))
    return offences


def check_source(relative: str, source: str) -> list[Offence]:
    """The size offences in one module's source; relative names it in the messages."""
    offences: list[Offence] = []
    lines = source.count("\n") + (0 if source.endswith("\n") or not source else 1)
    if lines > MAX_MODULE_LINES:
        offences.append(Offence(relative, 1, f"module is {lines} lines (limit {MAX_MODULE_LINES})"))
    tree = ast.parse(source, filename=relative)
    offences.extend(check_shapes(relative, source, tree))
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
            f"most {MAX_PACKAGE_MODULES} modules ({MAX_LOOSE_MODULES} for these), "
            f"dataclasses at most {MAX_DATACLASS_FIELDS} fields, and no line a format marker\n"
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
