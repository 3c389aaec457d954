"""The CLI over a lead agent and its sub-agent: the new events printed for people, the
parent's children in `agentd task`, and `agentd tasks --parent`."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator

import pytest

from tests.helpers import ROOT, ServerProcess, fake_llm_process, llm_env, server_process

REPLIES = [
    {"match": "cli: delegate", "tool_calls": [
        {"name": "agent_helper", "arguments": {"task": "cli: the helper's part"}}]},
    {"match": "You are the helper", "text": "helped"},
    {"match": "cli: delegate", "text": "delegated and done"},
]  # fmt: skip
LEAD = "id: teamlead\ninstructions: You lead.\nmode: function_calling\ndelegates: [helper]\n"
HELPER = (
    "id: helper\ndescription: Helps\ninstructions: You are the helper.\nmode: function_calling\n"
)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, str]]:
    folder = tmp_path_factory.mktemp("cli-teams")
    script = folder / "script.json"
    script.write_text(json.dumps(REPLIES))
    agents = folder / "agents"
    agents.mkdir()
    (agents / "teamlead.yaml").write_text(LEAD)
    (agents / "helper.yaml").write_text(HELPER)
    env = llm_env("", AGENTD_AUTH="on", AGENTD_AGENTS_DIR=str(agents))
    with fake_llm_process(script) as base_url:
        env["AGENTD_LLM_BASE_URL"] = base_url
        with server_process(folder / "server", env) as server:
            key = re.search(r"AGENTD_API_KEY=(agd_\S+)", server.printed)
            assert key, server.printed
            yield server, key.group(1)


def agentd(served: tuple[ServerProcess, str], *args: str) -> subprocess.CompletedProcess[str]:
    server, key = served
    env = {"PATH": "/usr/bin:/bin", "AGENTD_ADDRESS": server.address, "AGENTD_API_KEY": key}
    return subprocess.run(
        [sys.executable, "-m", "server.commands.cli", *args], capture_output=True, text=True,
        timeout=60, cwd=ROOT, env=env, check=False,
    )  # fmt: skip


def test_the_cli_prints_delegations_and_lists_a_tasks_children(
    served: tuple[ServerProcess, str],
) -> None:
    ran = agentd(served, "exec", "cli: delegate", "--agent", "teamlead", "--follow")
    assert ran.returncode == 0, ran.stderr
    parent_id = ran.stderr.splitlines()[0].split()[1]
    started = next(line for line in ran.stdout.splitlines() if "subtask_started" in line)
    child_id = started.split()[2]
    assert started.endswith(f"{child_id} helper@1: cli: the helper's part")
    finished = next(line for line in ran.stdout.splitlines() if "subtask_finished" in line)
    assert re.search(rf"{child_id} helper@1 completed \(\d+ tokens\): helped$", finished)

    children = agentd(served, "tasks", "--parent", parent_id)
    assert children.returncode == 0, children.stderr
    assert [line.split()[0] for line in children.stdout.splitlines()] == [child_id]
    shown = agentd(served, "task", parent_id).stdout
    assert re.search(rf"child {child_id}  helper@1  completed  \d+ tokens", shown)
    child = agentd(served, "task", child_id).stdout
    assert f"parent {parent_id}  root {parent_id}  depth 1" in child
