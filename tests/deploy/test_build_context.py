"""The image's build context (.dockerignore) lets in every package that pyproject.toml
installs, and the Containerfile builds on the documented default base."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from tests.deploy.source import ROOT, context_entries


def _inside(path: Path, entries: list[str]) -> bool:
    return any(path == Path(entry) or path.is_relative_to(entry) for entry in entries)


def test_every_package_pyproject_installs_is_in_the_build_context() -> None:
    find = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    where, include = find["packages"]["find"]["where"], find["packages"]["find"]["include"]
    kept, dropped = context_entries()
    tops = {pattern.split(".")[0].rstrip("*") for pattern in include}
    for top in sorted(tops):
        found = [Path(base) / top for base in where if (ROOT / base / top).is_dir()]
        assert found, f"package {top} of pyproject.toml is nowhere"
        for folder in found:
            folder = Path(str(folder).removeprefix("./"))
            assert _inside(folder, kept), f"{folder} is not let into the build context"
            assert not _inside(folder, dropped), f"{folder} is left out of the build context"
    for needed in ("pyproject.toml", "README.md", "LICENSE", "var/tiktoken", ".cache/wheels"):
        assert needed in kept, needed


def test_the_containerfile_defaults_to_the_slim_python_base() -> None:
    text = (ROOT / "deploy" / "Containerfile").read_text()
    assert re.search(r"^ARG BASE_IMAGE=python:3\.11-slim-bookworm$", text, re.MULTILINE)
    assert len(re.findall(r"^FROM \$\{BASE_IMAGE\}", text, re.MULTILINE)) == 2
