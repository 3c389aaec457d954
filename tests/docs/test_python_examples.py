"""Every Python example of the READMEs and docs/*.md runs as written, as a script of its
own, against `agentd serve` as `make run` starts it (authentication on, the development
key it prints in AGENTD_API_KEY) with `agentd fake-llm` as its model. A block marked
`<!-- not-run: reason -->` is left out (tests/docs/examples.py)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.docs import examples
from tests.helpers import ServerProcess, fake_llm_process, llm_env, server_process
from tests.integration.harness import PLANNER

SNIPPETS = [
    pytest.param(block.code, id=block.name)
    for block in examples.all_blocks()
    if block.language == "python" and not block.not_run
]
PLAN = {
    "steps": [
        {"id": "s1", "description": "read the first quote"},
        {"id": "s2", "description": "read the second quote"},
        {"id": "s3", "description": "compare them", "depends_on": ["s1", "s2"]},
        {"id": "s4", "description": "draft the reply", "depends_on": ["s3"]},
    ]
}
DEVELOPMENT_KEY = re.compile(r"AGENTD_API_KEY=(agd_\S+)")
HTTP_ADDRESS = re.compile(r'"url": "(http://[^"]+/)"[^\n]*"event": "HTTP address serving"')


@pytest.fixture(scope="module")
def made_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, str]]:
    folder = tmp_path_factory.mktemp("readme")
    script = folder / "script.json"
    script.write_text(json.dumps([
        {"match": PLANNER, "json": PLAN, "repeat": -1},
        {"text": "done", "repeat": -1},
    ]))  # fmt: skip
    env = llm_env("", AGENTD_AUTH="on", AGENTD_CRITIC_POLICY="off")
    # docs/mcp-server.md's example calls the MCP door on the HTTP address.
    env.update(AGENTD_HTTP_ADDRESS="127.0.0.1:0", AGENTD_HTTP_DOORS="mcp")
    with fake_llm_process(script) as base_url:
        env["AGENTD_LLM_BASE_URL"] = base_url
        with server_process(folder / "server", env) as served:
            key = DEVELOPMENT_KEY.search(served.printed)
            assert key, served.printed
            yield served, key.group(1)


def test_the_readmes_have_python_snippets() -> None:
    assert len(SNIPPETS) >= 6


@pytest.mark.parametrize("code", SNIPPETS)
def test_a_readme_snippet_runs_as_a_script(
    code: str, made_run: tuple[ServerProcess, str], tmp_path: Path
) -> None:
    served, key = made_run
    script = tmp_path / "snippet.py"
    script.write_text(code)
    env = {"PATH": "/usr/bin:/bin", "AGENTD_ADDRESS": served.address, "AGENTD_API_KEY": key}
    http = HTTP_ADDRESS.search(served.log())
    assert http, served.log()
    env["AGENTD_MCP_URL"] = f"{http.group(1)}mcp"
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120,
        cwd=tmp_path, env=env, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    if "2 ** 64" in code:
        assert done.stdout.splitlines() == [
            str(2**64),
            "TOOL_ARGUMENTS_INVALID [('arguments.expression', 'is required')]",
        ]
    if "AGENTD_MCP_URL" in code:
        assert done.stdout.splitlines()[-1] == "done"
    if "plan.steps.pop(2)" in code:
        assert done.stdout.strip() == "['done']"
