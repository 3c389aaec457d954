"""The agent files of docs/teams.md load as written: a lead with sub-agents and a panel."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from agent.definitions.files import AgentFiles
from records.agents.definition import parse_agent

DOC = Path(__file__).resolve().parents[3] / "docs" / "teams.md"


def test_the_documented_agent_files_load_without_problems(tmp_path: Path) -> None:
    blocks = re.findall(r"```yaml\n(.*?)```", DOC.read_text(), re.DOTALL)
    assert len(blocks) == 4
    for block in blocks:
        agent = parse_agent(yaml.safe_load(block), "docs/teams.md")
        (tmp_path / f"{agent.agent_id}.yaml").write_text(block)
    files = AgentFiles(tmp_path)
    files.load()
    assert files.problems == []
    lead = files.get("lead")
    assert lead is not None
    assert lead.delegates == ("researcher", "writer")
    assert [p.name for p in lead.panels] == ["review"]
    writer = files.get("writer")
    assert writer is not None
    assert writer.fresh_start
    coordinator = files.get("coordinator")
    assert coordinator is not None
    [remote] = coordinator.remote_delegates
    assert (remote.agent_id, remote.agent, remote.token_env) == (
        "finance-helper",
        "helper",
        "FINANCE_A2A_TOKEN",
    )
