"""`agentd serve --demo` (`make demo`): a streamed Execute with no model, no settings and
no other service, as the README's quickstart runs it."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

from server.commands.demo import ANSWER
from tests.helpers import ROOT, server_process

KEY = re.compile(r"export AGENTD_API_KEY=(agd_\S+)")
FOLDER = re.compile(r"State in (\S+), removed on exit")


def test_the_demo_serves_a_streamed_execute_with_a_fresh_key(tmp_path: Path) -> None:
    with server_process(tmp_path, options=("--demo",)) as served:
        key = KEY.search(served.printed)
        folder = FOLDER.search(served.printed)
        assert key, served.printed
        assert folder, served.printed
        assert Path(folder.group(1)).is_dir()
        env = {"PATH": "/usr/bin:/bin", "AGENTD_ADDRESS": served.address,
               "AGENTD_API_KEY": key.group(1)}  # fmt: skip
        done = subprocess.run(
            [sys.executable, "-m", "server.commands.cli", "exec", "what is 6*7?", "--follow"],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        again = subprocess.run(
            [sys.executable, "-m", "server.commands.cli", "exec", "and again?", "--follow"],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        served.terminate()
        assert served.wait(timeout=30) == 0
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("task task_")
    assert "calculator -> 42" in done.stdout
    assert ANSWER in done.stdout
    assert done.stdout.rstrip().endswith("completed")
    assert again.returncode == 0, again.stderr  # the script cycles: every task gets it
    assert ANSWER in again.stdout
    assert not Path(folder.group(1)).exists()


def test_the_demo_warns_of_nothing_it_brought(tmp_path: Path) -> None:
    """Its scripted model is declared (no 'model not in the catalog'), and it needs no
    tokenizer ranks (no 'token counts are estimated'), here with none to be found."""
    env = {"AGENTD_TOKENIZER_DIR": str(tmp_path / "no-ranks")}
    with server_process(tmp_path, env, options=("--demo",)) as served:
        deadline = time.monotonic() + 30
        while "token counts" not in served.log() and time.monotonic() < deadline:
            time.sleep(0.1)  # the ranks are checked right after SERVING
        served.terminate()
        assert served.wait(timeout=30) == 0
    lines = served.log().splitlines()
    assert any("token counts" in line for line in lines)
    assert [line for line in lines if '"level": "warning"' in line or "warning:" in line] == []
