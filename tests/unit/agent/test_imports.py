"""Every engine module can be imported first, on its own (no import cycle hides behind
the order in which others happen to import them)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
FOLDERS = ("agent/conversations", "agent/modes")
MODULES = sorted(
    [
        *(
            ".".join(path.relative_to(ROOT).with_suffix("").parts)
            for folder in FOLDERS
            for path in (ROOT / folder).glob("*.py")
            if path.name != "__init__.py"
        ),
        *(
            "agent.running.run",
            "agent.running.lifecycle",
            "agent.scheduling.execution",
            "agent.engine",
            "agent.tool_use.calls",
        ),
    ]
)
"""The conversation modules and those around the run they import (each import is a
fresh interpreter: not every module, to keep the test quick)."""


def test_each_engine_module_imports_on_its_own() -> None:
    failed = {}
    for module in MODULES:
        done = subprocess.run(
            [sys.executable, "-c", f"import {module}"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=False,
        )
        if done.returncode != 0:
            failed[module] = done.stderr.strip().splitlines()[-1]
    assert failed == {}
