"""Every agent file shown in the READMEs and docs/*.md loads as an agent file does, reads
the same through the Python client (`agentd_client.agent_files`, what `agentd agents
create` sends) as through the server's parser, and is created by `agentd agents create`
against a running server, which gives back the same agent.

An agent file of the pages is a `yaml` block holding a mapping with an `id`; a block
holding only agent-file keys without one (`memory:` with its settings) is a part of one,
checked with an id added."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from agentd_client import agent_files
from records.agents.definition import KEYS, AgentDefinition, parse_agent
from server.convert.agents import agent_data
from tests.docs import examples
from tests.docs.examples import Served
from tests.helpers import ROOT, server_process

FRAGMENT_ID = "part-of-a-page"
KEY = re.compile(r"export AGENTD_API_KEY=(agd_\S+)")


def _agent_file(code: str) -> dict[str, Any] | None:
    """The agent file a yaml block shows (a part of one given an id), else None."""
    data = yaml.safe_load(code)
    if not isinstance(data, dict) or not data:
        return None
    if "id" in data:
        return data
    return {"id": FRAGMENT_ID, **data} if set(map(str, data)) <= KEYS else None


SHOWN = [
    (block, shown)
    for block in examples.all_blocks()
    if block.language == "yaml" and (shown := _agent_file(block.code)) is not None
]
IDS = [block.name for block, _ in SHOWN]
CREDENTIALS = "FINANCE_A2A_TOKEN"
"""What the pages' remote delegate names as its token (the test server lets agents made
through the API name it: AGENTD_API_AGENT_CREDENTIALS)."""


def test_the_pages_show_agent_files() -> None:
    pages = {block.page for block, _ in SHOWN}
    assert {"README.md", "docs/memory-and-knowledge.md", "docs/teams.md", "docs/tools.md",
            "docs/models.md", "docs/conversations.md"} <= pages  # fmt: skip
    ids = [data["id"] for _, data in SHOWN]
    assert {"lead", "researcher", "writer", "coordinator", "careful"} <= set(ids)


@pytest.mark.parametrize("data", [d for _, d in SHOWN], ids=IDS)
def test_an_agent_file_of_the_pages_loads(data: dict[str, Any]) -> None:
    agent = parse_agent(data, "page")
    assert agent.agent_id


def _unversioned(agent: AgentDefinition) -> AgentDefinition:
    return replace(agent, version=1)


@pytest.mark.parametrize("data", [d for _, d in SHOWN], ids=IDS)
def test_the_client_reads_an_agent_file_of_the_pages_as_the_server_does(
    data: dict[str, Any],
) -> None:
    """The same keys known to both, and what the client sends is what the server would
    have read from the file itself (the RPC's `Agent` in the shape of an agent file)."""
    assert set(data) <= agent_files.KEYS
    assert set(data) <= KEYS
    sent = agent_files.agent_message(data)
    said = {key for key, value in data.items() if value not in (None, False, "", [], {})}
    assert set(agent_files.agent_mapping(sent)) == said | {"version"}  # each one sent
    received = parse_agent(agent_data(sent), "agent")
    assert received == _unversioned(parse_agent(data, "page"))


def test_the_knowledge_example_names_its_bases() -> None:
    (shown,) = [d for b, d in SHOWN if b.page == "docs/memory-and-knowledge.md" and "id" in
                yaml.safe_load(b.code)]  # fmt: skip
    agent = parse_agent(shown, "page")
    assert agent.knowledge == {"bases": ("support", "faq"), "rerank": False}
    readme = [d for b, d in SHOWN if b.page == "README.md"]
    knowledge = [parse_agent(d, "page").knowledge for d in readme]
    assert {"bases": ("billing-faq",), "rerank": True} in knowledge


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The quickstart's server (`agentd serve --demo`: its development key is an admin's),
    as the shell examples run against it."""
    folder = tmp_path_factory.mktemp("agents")
    env = {"AGENTD_API_AGENT_CREDENTIALS": CREDENTIALS}
    with server_process(folder, env, options=("--demo",)) as server:
        key = KEY.search(server.printed)
        assert key, server.printed
        yield Served(server.address, key.group(1))


def _agentd(served: Served, *args: str) -> subprocess.CompletedProcess[str]:
    """The `agentd` command `make setup` installs, as a person runs it."""
    return subprocess.run(
        ["agentd", *args], capture_output=True, text=True, timeout=60, cwd=ROOT,
        env=examples.shell_env(served), check=False,
    )  # fmt: skip


def test_every_agent_file_of_the_pages_is_created_with_the_cli(
    served: Served, tmp_path: Path
) -> None:
    """`agentd agents create FILE` for each (the page's text as it is, a part given an
    id), `agentd agents show` gives back the same agent, and `delete` makes room for the
    next one of the same id."""
    for index, (block, data) in enumerate(SHOWN):
        path = tmp_path / f"{index}.yaml"
        text = block.code if "id" in yaml.safe_load(block.code) else f"id: {FRAGMENT_ID}\n"
        path.write_text(text if text == block.code else text + block.code)
        created = _agentd(served, "agents", "create", str(path))
        assert (created.returncode, created.stderr) == (0, ""), block.name
        assert created.stdout.startswith(f"created {data['id']} version "), block.name
        shown = _agentd(served, "agents", "show", data["id"])
        assert shown.returncode == 0, shown.stderr
        back = parse_agent(yaml.safe_load(shown.stdout), "shown")
        assert _unversioned(back) == _unversioned(parse_agent(data, "page")), block.name
        assert _agentd(served, "agents", "delete", data["id"]).returncode == 0


def test_an_agent_made_by_the_cli_names_only_the_credentials_the_operator_lists(
    served: Served, tmp_path: Path
) -> None:
    """Its remote delegate's token is read by the server and sent to the remote: naming
    a variable or a file the operator did not list (the server's own secrets) is refused."""
    (coordinator,) = [b for b, d in SHOWN if d["id"] == "coordinator"]
    for named, field in (("token_env: AGENTD_DATABASE_URL", "token_env"),
                         ("token_file: /etc/agentd/provider-key", "token_file")):  # fmt: skip
        path = tmp_path / f"{field}.yaml"
        path.write_text(coordinator.code.replace(f"token_env: {CREDENTIALS}", named))
        refused = _agentd(served, "agents", "create", str(path))
        assert refused.returncode == 1
        assert "INVALID_ARGUMENT" in refused.stderr
        assert f"agent.remote_delegates[0].{field}" in refused.stderr
        assert "AGENTD_API_AGENT_CREDENTIALS" in refused.stderr
