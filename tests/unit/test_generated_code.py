"""The committed generated/ code must be exactly what `make proto` produces, for Python,
Go and Java; and a missing or unpinned generator is named, not guessed around."""

from __future__ import annotations

import filecmp
import importlib.util
import os
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _protogen() -> Any:
    spec = importlib.util.spec_from_file_location("protogen", ROOT / "scripts" / "protogen.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _files(folder: Path) -> list[Path]:
    return sorted(
        p.relative_to(folder)
        for p in folder.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    )


@pytest.mark.parametrize(
    "language",
    [
        "python",
        pytest.param("go", marks=pytest.mark.go),
        pytest.param("java", marks=pytest.mark.java),
    ],
)
def test_generated_code_matches_the_protos(tmp_path: Path, language: str) -> None:
    protogen = _protogen()
    protogen.generate(tmp_path, (language,))
    folder = protogen.OUTPUT[language]
    committed = ROOT / "generated" / folder
    fresh = _files(tmp_path / folder)
    assert fresh == _files(committed), (
        f"generated/{folder} has missing or extra files: run `make proto`"
    )
    drifted = [
        str(p)
        for p in fresh
        if not filecmp.cmp(tmp_path / folder / p, committed / p, shallow=False)
    ]
    assert drifted == [], (
        f"generated/{folder} differs from the protos in {drifted}: run `make proto`"
    )


def test_a_missing_or_unpinned_generator_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    protogen = _protogen()
    fake = tmp_path / "bin"
    fake.mkdir()
    script = fake / "protoc-gen-go"
    script.write_text("#!/bin/sh\necho protoc-gen-go v9.9.9\n")
    script.chmod(0o755)
    protoc = fake / "protoc"
    protoc.write_text("#!/bin/sh\necho libprotoc 3.21.12\n")
    protoc.chmod(0o755)
    monkeypatch.setenv("PATH", str(fake))
    with pytest.raises(protogen.GeneratorMissing, match=r"protoc-gen-go is protoc-gen-go v9\.9\.9"):
        protogen.check_generators("go")
    script.unlink()
    with pytest.raises(protogen.GeneratorMissing, match="Debian package protoc-gen-go"):
        protogen.check_generators("go")
    assert os.environ["PATH"] == str(fake)
