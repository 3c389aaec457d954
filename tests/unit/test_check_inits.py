"""scripts/check_inits.py fails on a package `__init__.py` that defines a function, a class
or a lambda (wherever it stands in the file), passes one that only says what its package
holds and re-exports, and passes the real tree."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _check_inits() -> Any:
    spec = importlib.util.spec_from_file_location(
        "check_inits", ROOT / "scripts" / "check_inits.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


FINE = '''"""A package: what it holds."""

from typing import TYPE_CHECKING

from pkg.part import Part as Part
from pkg.tool import make_tool

if TYPE_CHECKING:
    from pkg.other import Other

LIMIT = 3
__all__ = ["Part", "make_tool"]
'''


def _tree(root: Path, broken: dict[str, str]) -> Path:
    """A package tree under root: pkg/ and pkg/sub/, fine unless `broken` says otherwise
    (its keys: paths under root, its values: their source)."""
    for relative in ("pkg/__init__.py", "pkg/sub/__init__.py"):
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(broken.get(relative, FINE))
    return root / "pkg"


def test_a_tree_whose_inits_only_say_and_re_export_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _check_inits().main([str(_tree(tmp_path, {}))]) == 0
    assert capsys.readouterr().out == ""


def test_a_function_a_class_and_a_lambda_in_an_init_are_offences(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = FINE + (
        "\n\ndef helper() -> int:\n    return 1\n"
        "\n\nif LIMIT:\n\n    class Hidden:\n        pass\n"
        "\n\nKEY = lambda x: x\n"
    )
    sub = "async def fetch() -> None:\n    pass\n"
    package = _tree(tmp_path, {"pkg/__init__.py": broken, "pkg/sub/__init__.py": sub})

    assert _check_inits().main([str(package)]) == 1

    out = capsys.readouterr().out.splitlines()
    top, inner = package / "__init__.py", package / "sub" / "__init__.py"
    assert [line.split(": move it")[0] for line in out[:-1]] == [
        f"{top}:15: defines function helper",
        f"{top}:21: defines class Hidden",
        f"{top}:25: defines a lambda",
        f"{inner}:1: defines function fetch",
    ]
    assert out[-1] == "check_inits: 4 definition(s) in package __init__ files"


def test_a_file_named_alone_is_checked(tmp_path: Path) -> None:
    path = tmp_path / "__init__.py"
    path.write_text("class Settings:\n    pass\n")
    assert _check_inits().main([str(path)]) == 1


def test_the_real_tree_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert _check_inits().main([]) == 0, capsys.readouterr().out


def test_tests_and_generated_code_are_not_checked() -> None:
    tracked = _check_inits().tracked_inits(ROOT)
    assert "server/__init__.py" in tracked
    assert not [n for n in tracked if n.startswith(("tests/", "generated/"))]
