"""scripts/check_run_reads.py names a module that reads more than 8 distinct attributes of
the run (`run`, `self.run`, `self._run`), passes one that reads 8, and passes the real
tree, where the run's own module is exempt."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _check() -> Any:
    spec = importlib.util.spec_from_file_location(
        "check_run_reads", ROOT / "scripts" / "check_run_reads.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _reading(count: int) -> str:
    """A module reading `count` distinct attributes of the run, each in a different way."""
    bases = ["run", "self.run", "self._run"]
    lines = [f"    x = {bases[i % 3]}.attribute_{i}\n" for i in range(count)]
    return "def work(self, run):\n" + "".join(lines)


def test_nine_attributes_are_an_offence_and_eight_are_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    check = _check()
    (tmp_path / "nine.py").write_text(_reading(9))
    (tmp_path / "eight.py").write_text(_reading(8) + _reading(8).replace("work", "again"))
    monkeypatch.chdir(tmp_path)
    assert check.main(["eight.py"]) == 0
    assert check.main(["nine.py"]) == 1
    out = capsys.readouterr().out
    assert "nine.py: reads 9 attributes of the run (limit 8)" in out
    assert "attribute_8" in out


def test_other_names_are_not_the_run() -> None:
    check = _check()
    source = "def f(task, other):\n" + "".join(
        f"    task.a{i}\n    other._run_x{i}\n" for i in range(20)
    )
    assert check.run_reads(source) == set()


def test_the_real_tree_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert _check().main([]) == 0, capsys.readouterr().out


def test_the_run_s_own_module_and_tests_are_exempt() -> None:
    files = _check().first_party_files(ROOT)
    assert "agent/running/run.py" not in files
    assert "agent/tool_use/calls.py" in files
    assert not [name for name in files if name.startswith("tests/")]
