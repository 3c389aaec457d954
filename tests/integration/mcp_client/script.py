"""The official `mcp` client (`mcp.client.streamable_http`) against agentd's MCP door, in
a process of its own: `python script.py '<spec json>'` prints one JSON line of findings.

The spec names two replicas' `/mcp` URLs (`a`, `b`) and the bearer tokens of a caller
holding the grants (`token`), of one holding none (`stranger`) and of one holding a
grant for the calculator alone (`carol`)."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import httpx2
import mcp_types as types
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


def client(url: str, token: str, mode: str = "2026-07-28") -> Client:
    http = create_mcp_http_client(headers={"authorization": f"Bearer {token}"})
    return Client(streamable_http_client(url, http_client=http), mode=mode)


def text_of(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


async def answered(spec: dict[str, Any]) -> dict[str, Any]:
    """tools/list, and a call to an answer with its progress notifications."""
    told: list[str] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        told.append(message or "")

    async with client(spec["a"], spec["token"]) as mcp:
        tools = (await mcp.list_tools()).tools
        result = await mcp.call_tool(
            "plain", {"task": "hello there"}, progress_callback=on_progress
        )
        default = await mcp.call_tool("agentd", {"task": "hello there"})
    return {
        "tools": {t.name: {"description": t.description, "schema": t.input_schema} for t in tools},
        "default": text_of(default),
        "answer": text_of(result),
        "is_error": bool(result.is_error),
        "progress": told,
    }


async def approval(spec: dict[str, Any]) -> dict[str, Any]:
    """input_required on replica a, the approval sent with the retry to replica b."""
    arguments = {"task": "calc job", "context": {"why": "test"}}
    async with client(spec["a"], spec["token"]) as first:
        asked = await first.session.call_tool("helper", arguments, allow_input_required=True)
    assert isinstance(asked, types.InputRequiredResult), asked
    assert asked.input_requests is not None
    assert asked.request_state is not None
    form = asked.input_requests["agentd"]
    assert isinstance(form, types.ElicitRequest)
    assert isinstance(form.params, types.ElicitRequestFormParams)
    yes = types.ElicitResult(action="accept", content={"approve": True, "comment": "fine"})
    async with client(spec["b"], spec["token"]) as second:
        done = await second.call_tool(
            "helper", arguments, input_responses={"agentd": yes}, request_state=asked.request_state
        )
    async with client(spec["b"], spec["stranger"]) as stranger:
        stolen = await stranger.session.call_tool(
            "helper",
            arguments,
            input_responses={"agentd": yes},
            request_state=asked.request_state,
            allow_input_required=True,
        )
    assert isinstance(stolen, types.CallToolResult)
    return {
        "message": form.params.message,
        "schema": form.params.requested_schema,
        "answer": text_of(done),
        "is_error": bool(done.is_error),
        "task_id": (done.meta or {}).get("agentd/task_id"),
        "stolen": text_of(stolen),
    }


async def question(spec: dict[str, Any]) -> dict[str, Any]:
    """The agent's question as input_required on replica b, answered on replica a."""
    arguments = {"task": "ask job"}
    async with client(spec["b"], spec["token"]) as first:
        asked = await first.session.call_tool("asking", arguments, allow_input_required=True)
    assert isinstance(asked, types.InputRequiredResult), asked
    assert asked.input_requests is not None
    form = asked.input_requests["agentd"]
    assert isinstance(form, types.ElicitRequest)
    assert isinstance(form.params, types.ElicitRequestFormParams)
    reply = types.ElicitResult(action="accept", content={"answer": "blue"})
    async with client(spec["a"], spec["token"]) as second:
        done = await second.call_tool(
            "asking",
            arguments,
            input_responses={"agentd": reply},
            request_state=asked.request_state,
        )
    return {
        "message": form.params.message,
        "schema": form.params.requested_schema,
        "answer": text_of(done),
        "is_error": bool(done.is_error),
    }


async def refused(spec: dict[str, Any]) -> dict[str, Any]:
    """A caller without the grants; one without credentials; an older client's wait."""
    async with client(spec["a"], spec["stranger"]) as mcp:
        tools = (await mcp.list_tools()).tools
        denied = await mcp.call_tool("plain", {"task": "hello there"})
    async with client(spec["b"], spec["token"], mode="legacy") as old:
        waiting = await old.call_tool("helper", {"task": "calc job"})
        bad = await old.call_tool("plain", {"context": {}})
    async with httpx2.AsyncClient() as http:
        anonymous = await http.post(
            spec["a"],
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
            headers={"accept": "application/json, text/event-stream"},
        )
    return {
        "stranger_tools": [t.name for t in tools],
        "denied": text_of(denied),
        "denied_is_error": bool(denied.is_error),
        "legacy": text_of(waiting),
        "legacy_is_error": bool(waiting.is_error),
        "bad": text_of(bad),
        "anonymous_status": anonymous.status_code,
    }


async def own(spec: dict[str, Any]) -> dict[str, Any]:
    """agentd's own tools (AGENTD_MCP_TOOLS), called as CallTool calls them."""
    async with client(spec["b"], spec["carol"]) as mcp:
        tools = (await mcp.list_tools()).tools
        result = await mcp.call_tool("agentd.calculator", {"expression": "6*7"})
        refused = await mcp.call_tool("agentd.read_file", {"path": "x"})
    return {
        "tools": [t.name for t in tools],
        "answer": text_of(result),
        "is_error": bool(result.is_error),
        "refused": text_of(refused),
    }


async def without_keys(spec: dict[str, Any]) -> dict[str, Any]:
    """A 2026-07-28 call whose task waits, on a server with no keys to seal its state."""
    async with client(spec["a"], spec["token"]) as mcp:
        result = await mcp.session.call_tool(
            "helper", {"task": "calc job"}, allow_input_required=True
        )
    assert isinstance(result, types.CallToolResult), result
    return {"text": text_of(result), "is_error": bool(result.is_error)}


async def main(spec: dict[str, Any]) -> dict[str, Any]:
    if spec.get("scenario") == "without_keys":
        return {"without_keys": await without_keys(spec)}
    return {
        "answered": await answered(spec),
        "approval": await approval(spec),
        "question": await question(spec),
        "refused": await refused(spec),
        "own": await own(spec),
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(json.loads(sys.argv[1])))))
