"""The committed generated/ code must be exactly what `make proto` produces."""

from __future__ import annotations

import filecmp
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _protogen() -> object:
    spec = importlib.util.spec_from_file_location("protogen", ROOT / "scripts" / "protogen.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_code_matches_the_protos(tmp_path: Path) -> None:
    protogen = _protogen()
    protogen.generate(tmp_path)  # type: ignore[attr-defined]
    committed = ROOT / "generated"
    fresh = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    existing = sorted(
        p.relative_to(committed)
        for p in committed.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    )
    assert fresh == existing, "generated/ has missing or extra files: run `make proto`"
    drifted = [str(p) for p in fresh if not filecmp.cmp(tmp_path / p, committed / p, shallow=False)]
    assert drifted == [], f"generated/ differs from the protos in {drifted}: run `make proto`"
