"""agentd's agents as MCP tools, driven by the official `mcp` client in a process of its
own against two replicas on the machine's Redis and PostgreSQL, through their HTTP
addresses and guards (auth on, default deny): it lists the agents alice may use as tools
(and the default agent, `agentd`), calls one to its answer with progress notifications,
gets `input_required` for a tool call needing approval on one replica and sends the
approval (alice holds the approver role ApproveToolCall asks for) with its retry to the
other, where the task goes on to its answer; an agent's question is answered the same way
from b to a. A caller without the grants sees only the
default agent and is refused the others; the sealed request state is no use to another
caller; an older client is told of the inbox; one without credentials gets 401. Under
AGENTD_MCP_TOOLS agentd's own tools are listed and called as CallTool calls them. The
guard's audit records name each call.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from records.keys import new_key
from tests.integration import mcp_client
from tests.integration.test_a2a_push import KEYS
from tests.integration.trust import Trust, trusted

pytestmark = [pytest.mark.redis, pytest.mark.postgres]

SCRIPT = Path(mcp_client.__file__).with_name("script.py")
PLAIN = "id: plain\ndescription: Says hello.\n"
HELPER = "id: helper\ndescription: Does sums.\nmode: function_calling\ntools: [calculator]\n"
ASKING = "id: asking\nmode: function_calling\nask_user: true\n"
REPLIES: list[dict[str, Any]] = [
    {"match": "blue", "text": "you said blue", "repeat": -1},  # the question's answer
    {
        "match": "ask job",
        "repeat": -1,
        "tool_calls": [{"name": "ask_user", "arguments": {"question": "Which colour?"}}],
    },
    {"match": "1764", "text": "the sum is 1764", "repeat": -1},  # the approved call's result
    {
        "match": "calc job",
        "repeat": -1,
        "tool_calls": [{"name": "calculator", "arguments": {"expression": "42*42"}}],
    },
    {"match": "hello there", "text": "hi from plain", "repeat": -1},
]


async def official_client(spec: dict[str, Any]) -> dict[str, Any]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(SCRIPT),
        json.dumps(spec),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode == 0, err.decode()[-4000:]
    found: dict[str, Any] = json.loads(out.decode().strip().splitlines()[-1])
    return found


def url_of(t: Trust) -> str:
    """The MCP door's URL on the server's HTTP address."""
    assert t.server.http is not None
    return f"{t.server.http.url}mcp"


async def token(t: Trust, principal: str, *roles: str) -> str:
    made, plaintext = new_key("acme", principal, roles)
    await t.server.durable.api_keys.add(made)
    return plaintext


async def test_the_official_client_across_two_replicas(
    tmp_path: Path, prefix: str, database: str
) -> None:
    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "plain.yaml").write_text(PLAIN)
    (agents / "helper.yaml").write_text(HELPER)
    (agents / "asking.yaml").write_text(ASKING)
    shared: dict[str, Any] = {
        "redis_url": "redis://127.0.0.1:6379/0",
        "redis_prefix": prefix,
        "database_url": database,
        "grants_refresh_seconds": 0.1,
        "keys": KEYS,
        "agents_dir": agents,
        "mcp_tools": True,
        "http_address": "127.0.0.1:0",
        "http_doors": ["mcp"],
    }
    async with (
        trusted(tmp_path / "a", REPLIES, **shared) as a,
        trusted(tmp_path / "b", **shared, llm_base_url=a.llm.base_url) as b,
    ):
        await a.grant("acme", "principal:alice", "ask_user", "read")
        for agent in ("agent.plain", "agent.helper", "agent.asking"):
            await a.grant("acme", "principal:alice", agent, "read")
        await a.grant("acme", "principal:alice", "calculator", "read", requires_approval=True)
        await a.grant("acme", "principal:carol", "calculator", "read")
        await b.refresh()
        spec = {
            "a": url_of(a),
            "b": url_of(b),
            "token": await token(a, "alice", "approver"),
            "stranger": await token(a, "bob"),
            "carol": await token(a, "carol"),
        }
        found = await official_client(spec)
        alice = await a.client("acme", "alice")
        started = await alice.get_task(found["approval"]["task_id"])
        assert dict(started.labels) == {"agentd.via": "mcp"}
        assert started.agent.startswith("helper")
        await a.server.audit.flush()
        await b.server.audit.flush()
        audited = [
            (r.principal_id, r.method, r.code, r.task_id)
            for r in await a.rpc_records()
            if r.method.startswith("/mcp/")
        ]

    answered = found["answered"]
    assert set(answered["tools"]) == {
        "agentd",
        "plain",
        "helper",
        "asking",
        "agentd.calculator",
    }
    assert answered["default"] == "hi from plain"  # the default agent, on the same model
    assert answered["tools"]["helper"]["description"] == "Does sums."
    schema = answered["tools"]["plain"]["schema"]
    assert schema["required"] == ["task"]
    assert set(schema["properties"]) == {"task", "context", "files"}
    assert (answered["answer"], answered["is_error"]) == ("hi from plain", False)
    assert answered["progress"][0].startswith("task task_")
    assert "task completed" in answered["progress"]
    assert len(answered["progress"]) >= 2

    approval = found["approval"]
    assert "calculator" in approval["message"]
    assert approval["schema"]["required"] == ["approve"]
    assert (approval["answer"], approval["is_error"]) == ("the sum is 1764", False)
    assert approval["task_id"].startswith("task_")
    question = found["question"]
    assert question["message"] == "Which colour?"
    assert question["schema"]["required"] == ["answer"]
    assert (question["answer"], question["is_error"]) == ("you said blue", False)
    assert "INVALID_ARGUMENT" in approval["stolen"]
    assert "requestState" in approval["stolen"]

    refused = found["refused"]
    assert refused["stranger_tools"] == ["agentd"]  # the default agent needs no grant
    assert refused["denied_is_error"] is True
    assert "PERMISSION_DENIED" in refused["denied"]
    assert "agent.plain" in refused["denied"]
    assert refused["legacy_is_error"] is True
    assert "ListPendingActions" in refused["legacy"]
    assert "ApproveToolCall" in refused["legacy"]
    assert "arguments.task" in refused["bad"]
    assert refused["anonymous_status"] == 401

    own = found["own"]
    assert own["tools"] == ["agentd", "agentd.calculator"]
    assert (own["answer"], own["is_error"]) == ("42", False)
    assert "PERMISSION_DENIED" in own["refused"]

    task_id = approval["task_id"]
    assert ("alice", "/mcp/tools/call", "OK", task_id) in audited  # asked on a, answered on b
    assert ("bob", "/mcp/tools/call", "PERMISSION_DENIED", "") in audited
    assert ("alice", "/mcp/tools/list", "OK", "") in audited
    assert ("unauthenticated", "/mcp/tools/list", "UNAUTHENTICATED", "") in audited


async def test_without_keys_a_wait_is_told_of_the_inbox(tmp_path: Path) -> None:
    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "helper.yaml").write_text(HELPER)
    settings = {"agents_dir": agents, "http_address": "127.0.0.1:0", "http_doors": ["mcp"]}
    async with trusted(tmp_path, REPLIES, **settings) as t:
        await t.grant("acme", "principal:alice", "agent.helper", "read")
        await t.grant("acme", "principal:alice", "calculator", "read", requires_approval=True)
        spec = {"scenario": "without_keys", "a": url_of(t), "token": await token(t, "alice")}
        found = (await official_client(spec))["without_keys"]
    assert found["is_error"] is True
    assert "no AGENTD_KEYS" in found["text"]
    assert "ListPendingActions" in found["text"]
