"""What of the repository goes into the image's build context (.dockerignore's list)."""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def context_entries() -> tuple[list[str], list[str]]:
    """(what .dockerignore lets in after its `*`, what it then leaves out again)."""
    lines = [line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()]
    rules = [line for line in lines if line and not line.startswith("#")]
    assert rules[0] == "*", "the build context is a list of what goes in"
    kept = [rule[1:] for rule in rules[1:] if rule.startswith("!")]
    dropped = [rule for rule in rules[1:] if not rule.startswith("!")]
    return kept, dropped


def copy_sources(into: Path) -> Path:
    """A copy of what the build context holds of agentd's own sources (no wheels or ranks),
    so that a `pip install` of it builds nothing inside the work tree."""
    kept, dropped = context_entries()
    left_out = {Path(rule) for rule in dropped if "*" not in rule}
    for entry in kept:
        source = ROOT / entry
        if entry.startswith((".cache", "var/")) or not source.exists():
            continue
        target = into / entry
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(
                source,
                target,
                ignore=lambda folder, names: [
                    n
                    for n in names
                    if n == "__pycache__"
                    or n.endswith(".pyc")
                    or Path(folder, n).relative_to(ROOT) in left_out
                ],
            )
        else:
            shutil.copy2(source, target)
    return into
