"""The installed distribution holds every package of the source tree: pyproject's
`[tool.setuptools.packages.find]` names them by pattern, and a new folder its patterns
miss would import from a checkout yet be absent from the image and any installed server
(as a CLI wing of `clients/` once was)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from setuptools import find_packages

ROOT = Path(__file__).resolve().parents[2]


def test_every_package_of_the_tree_is_in_the_distribution() -> None:
    found = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    rules = found["packages"]["find"]
    shipped: set[str] = set()
    wanted: set[str] = set()
    for where in rules["where"]:
        base = ROOT / where
        shipped |= set(find_packages(str(base), include=rules["include"]))
        wanted |= set(find_packages(str(base), exclude=["tests*", "bench*", "scripts*"]))
    tops = {name.split(".")[0] for name in shipped}
    missing = sorted(name for name in wanted if name.split(".")[0] in tops)
    assert sorted(set(missing) - shipped) == []
