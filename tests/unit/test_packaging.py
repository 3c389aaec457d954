"""The installed distribution holds every package of the source tree: pyproject's
`[tool.setuptools.packages.find]` names them by pattern, and a new folder its patterns
miss would import from a checkout yet be absent from the image and any installed server
(as a CLI wing of `clients/` once was)."""

from __future__ import annotations

import tomllib
from fnmatch import fnmatchcase
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOT_SHIPPED = ("tests", "bench", "scripts")


def _packages(base: Path) -> set[str]:
    """Every package under `base` (a folder with an `__init__.py`, under others), dotted."""
    return {
        ".".join(init.parent.relative_to(base).parts)
        for init in base.rglob("__init__.py")
        if all(
            (base / Path(*init.parent.relative_to(base).parts[:i])).joinpath("__init__.py").exists()
            for i in range(1, len(init.parent.relative_to(base).parts) + 1)
        )
        and ".venv" not in init.parts
    }


def test_every_package_of_the_tree_is_in_the_distribution() -> None:
    found = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    rules = found["packages"]["find"]
    shipped: set[str] = set()
    wanted: set[str] = set()
    for where in rules["where"]:
        for name in _packages(ROOT / where):
            if name.split(".")[0] in NOT_SHIPPED:
                continue
            wanted.add(name)
            if any(fnmatchcase(name, pattern) for pattern in rules["include"]):
                shipped.add(name)
    tops = {name.split(".")[0] for name in shipped}
    assert sorted(n for n in wanted - shipped if n.split(".")[0] in tops) == []
