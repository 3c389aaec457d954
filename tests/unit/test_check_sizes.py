"""scripts/check_sizes.py names every module over 400 lines and every function over 60,
counts a function from its `def` line (not its decorators), names every package over
its count of modules, every dataclass over 15 fields (outside records/) and every line
packed by hand with a format marker, and skips tests and generated code."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _check_sizes() -> Any:
    spec = importlib.util.spec_from_file_location(
        "check_sizes", ROOT / "scripts" / "check_sizes.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


def _function(name: str, lines: int, indent: str = "") -> str:
    """A function of exactly `lines` lines, `def` line included."""
    body = "".join(f"{indent}    x = {i}\n" for i in range(lines - 1))
    return f"{indent}def {name}() -> None:\n{body}"


def test_a_function_of_61_lines_and_a_module_of_401_are_offences(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    check_sizes = _check_sizes()
    long_function = tmp_path / "long_function.py"
    long_function.write_text(_function("fine", 60) + _function("too_long", 61))
    long_module = tmp_path / "long_module.py"
    long_module.write_text("x = 0\n" * 401)

    assert check_sizes.main([str(long_function), str(long_module)]) == 1

    out = capsys.readouterr().out.splitlines()
    assert f"{long_function}:61: function too_long is 61 lines (limit 60)" in out
    assert f"{long_module}:1: module is 401 lines (limit 400)" in out
    assert not any("fine" in line for line in out)
    assert len(out) == 3  # the two offences and the summary


def test_within_the_limits_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    check_sizes = _check_sizes()
    path = tmp_path / "fine.py"
    path.write_text(_function("f", 60) + "x = 0\n" * (400 - 60))

    assert check_sizes.main([str(path)]) == 0
    assert capsys.readouterr().out == ""


def test_methods_and_nested_functions_are_named_and_decorators_do_not_count() -> None:
    check_sizes = _check_sizes()
    decorators = "    @staticmethod\n    @some.decorator(1)\n"
    source = (
        "class Box:\n"
        + decorators
        + _function("decorated", 60, indent="    ")
        + _function("method", 61, indent="    ")
        + _function("outer", 10)
        + _function("inner", 61, indent="    ")
    )

    offences = [str(o) for o in check_sizes.check_source("box.py", source)]

    assert offences == [
        "box.py:64: function Box.method is 61 lines (limit 60)",
        "box.py:125: function outer is 71 lines (limit 60)",
        "box.py:135: function outer.inner is 61 lines (limit 60)",
    ]


@pytest.mark.parametrize(
    ("path", "skipped"),
    [
        ("tests/unit/test_x.py", True),
        ("generated/agentd/v1/agent_pb2.py", True),
        ("clients/python/agentd/v1/agent_pb2.py", True),
        ("clients/python/build/lib/agentd_client/client.py", True),
        ("bench/node_modules/x.py", True),
        (".venv/lib/site.py", True),
        ("server/convert/tasks.py", False),
        ("clients/python/agentd_client/client.py", False),
        ("scripts/check_sizes.py", False),
    ],
)
def test_tests_and_generated_code_are_exempt(path: str, skipped: bool) -> None:
    assert _check_sizes().excluded(path) is skipped


def test_a_package_of_16_modules_and_an_agent_top_of_11_are_offences() -> None:
    check = _check_sizes()
    full = [f"server/settings/m{i}.py" for i in range(15)]
    wings = [f"agent/m{i}.py" for i in range(10)]
    within = [
        *full, "server/settings/__init__.py", "server/settings/sub/x.py", *wings,
        "agent/__init__.py", "agent/wing/y.py",
        *[f"stores/sql/migrations/versions/{i:04}_x.py" for i in range(30)],
    ]  # fmt: skip
    assert check.check_packages(within) == []
    over = check.check_packages([*within, "server/settings/m15.py", "agent/m10.py"])
    assert [str(offence) for offence in over] == [
        "agent/:1: package holds 11 modules (limit 10)",
        "server/settings/:1: package holds 16 modules (limit 15)",
    ]


def test_a_dataclass_of_16_fields_and_a_format_marker_are_offences() -> None:
    check_sizes = _check_sizes()
    fields = "".join(f"    f{i}: int = 0\n" for i in range(16))
    source = (
        f"from dataclasses import dataclass\n\n\n@dataclass(frozen=True)\nclass Wide:\n{fields}"
    )
    [offence] = check_sizes.check_source("agent/wide.py", source)
    assert offence.message == "dataclass Wide has 16 fields (limit 15)"
    narrower = source.replace("    f15: int = 0\n", "    LIMIT: ClassVar[int] = 1\n")
    assert check_sizes.check_source("agent/wide.py", narrower) == []
    assert check_sizes.check_source("records/wide.py", source) == []  # stored forms
    marker = "# fmt: " + "skip"
    packed = f"x = [1,\n     2]  {marker}\n"
    [packing] = check_sizes.check_source("agent/packed.py", packed)
    assert (packing.line, packing.message) == (2, "a format marker: let ruff lay the code out")
