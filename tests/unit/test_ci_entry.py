"""CI's entry point checks the code before it runs the suite: `.ci/run` runs `make lint`
and `make typecheck`, then `make test`, each as a command of its own (set -e stops at
the first that fails)."""

from __future__ import annotations

from pathlib import Path

CI = Path(__file__).resolve().parents[2] / ".ci" / "run"


def _commands() -> list[str]:
    lines = CI.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def test_ci_stops_on_the_first_failure() -> None:
    assert "set -euo pipefail" in _commands()


def test_ci_lints_and_typechecks_before_the_suite() -> None:
    commands = _commands()
    assert {"make lint", "make typecheck", "make test"} <= set(commands)
    assert (
        commands.index("make lint") < commands.index("make typecheck") < commands.index("make test")
    )
