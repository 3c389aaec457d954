"""A2A with the official client: a2a-sdk, in its own virtual environment and process,
drives agentd (auth on, a scripted model) over the gRPC binding on agentd's port and the
JSON-RPC binding on the A2A HTTP address: send (blocking and return_immediately), stream,
get, list, cancel, subscribe (and resume), a question answered, an approval, errors as
the SDK's own types, another tenant's task NOT_FOUND, and the cards."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from records.keys import new_key
from tests.integration.a2a.client_env import SCRIPT, client_python
from tests.integration.test_a2a_push import KEYS
from tests.integration.trust import Trust, trusted

HELPER = "id: helper\ndescription: Does sums.\nmode: function_calling\ntools: [calculator]\n"
ASKING = "id: asking\nmode: function_calling\nask_user: true\ntools: [calculator]\n"
CALL = {"tool_calls": [{"name": "calculator", "arguments": {"expression": "6*7"}}]}
BINDINGS = ["GRPC", "JSONRPC"]


async def official_client(spec: dict[str, Any]) -> dict[str, Any]:
    """Run a scenario of the official client; its findings."""
    python = await asyncio.to_thread(client_python)
    process = await asyncio.create_subprocess_exec(
        str(python),
        str(SCRIPT),
        json.dumps(spec),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=90)
    assert process.returncode == 0, err.decode()[-3000:]
    found: dict[str, Any] = json.loads(out.decode().strip().splitlines()[-1])
    return found


@asynccontextmanager
async def a2a_server(tmp_path: Path, replies: list[Any]) -> AsyncIterator[Trust]:
    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "helper.yaml").write_text(HELPER)
    (agents / "asking.yaml").write_text(ASKING)
    async with trusted(
        tmp_path,
        replies,
        a2a=True,
        http_address="127.0.0.1:0",
        agents_dir=agents,
        keys=KEYS,  # the tour's push config has a token
    ) as t:
        yield t


async def key(t: Trust, tenant: str, principal: str, *roles: str) -> str:
    """A new API key of `principal` in `tenant`, as the official client sends it."""
    made, plaintext = new_key(tenant, principal, roles)
    await t.server.durable.api_keys.add(made)
    return plaintext


async def spec_of(t: Trust, binding: str, scenario: str, agent: str) -> dict[str, Any]:
    serving = t.server.a2a
    assert serving is not None
    assert t.server.http is not None
    assert t.server.http.serves("a2a")
    return {
        "scenario": scenario,
        "binding": binding,
        "grpc": t.address,
        "http": serving.handler.cards.addresses.jsonrpc,  # type: ignore[attr-defined]
        "token": await key(t, "acme", "alice"),
        "agent": agent,
    }


@pytest.mark.parametrize("binding", BINDINGS)
async def test_the_official_client_tours_every_operation(tmp_path: Path, binding: str) -> None:
    replies = [
        {"match": "slow", "delay_seconds": 2.0, "text": "slow done", "repeat": -1},
        {"text": "42", "repeat": -1},
    ]
    async with a2a_server(tmp_path, replies) as t:
        await t.grant("acme", "principal:alice", "calculator", "read")
        found = await official_client(await spec_of(t, binding, "tour", "helper"))

    card = found["card"]
    assert card["name"] == "helper"
    assert [s["id"] for s in card["skills"]] == ["calculator"]
    assert card["capabilities"]["streaming"] is True
    assert card["capabilities"]["pushNotifications"] is True
    assert {i["protocolBinding"] for i in card["supportedInterfaces"]} == {"GRPC", "JSONRPC"}
    assert "bearer" in card["securitySchemes"]

    assert found["blocking"]["state"] == "TASK_STATE_COMPLETED"
    assert found["blocking"]["answer"] == "42"
    assert found["context_id"].startswith("conv_")
    assert found["retried_id"] == found["blocking"]["id"]  # message_id: the idempotency key

    assert found["immediate"]["state"] in ("TASK_STATE_SUBMITTED", "TASK_STATE_WORKING")
    subscribed = found["subscribed"]
    assert subscribed[0]["kind"] == "task"
    assert subscribed[-1] == {
        "kind": "status_update",
        "state": "TASK_STATE_COMPLETED",
        "sequence": subscribed[-1]["sequence"],
        "text": "",
    }
    assert [u["text"] for u in subscribed if u["kind"] == "artifact_update"] == ["slow done"]
    assert found["got"] == {"state": "TASK_STATE_COMPLETED", "answer": "slow done"}

    streamed = found["streamed"]
    assert streamed[0]["kind"] == "task"
    sequences = [u["sequence"] for u in streamed[1:]]
    assert sequences == sorted(set(sequences))  # in order, none twice
    assert [u["kind"] for u in streamed[-2:]] == ["artifact_update", "status_update"]
    assert streamed[-1]["state"] == "TASK_STATE_COMPLETED"

    assert found["blocking"]["id"] in found["listed"]
    assert found["immediate"]["id"] in found["listed"]
    assert len(found["listed"]) == 3  # tour-1 (sent twice: one task), tour-2, tour-3

    replayed = found["replayed"]  # resumed from position 0: the whole log's updates
    assert replayed[0]["kind"] == "task"
    assert replayed[1]["state"] == "TASK_STATE_SUBMITTED"
    assert replayed[-1]["state"] == "TASK_STATE_COMPLETED"

    assert found["errors"] == {
        "get_unknown": "TaskNotFoundError",
        "cancel_finished": "TaskNotCancelableError",
        "subscribe_finished": "UnsupportedOperationError",
        "no_text": "InvalidParamsError",
    }
    assert found["cancelled"] == "TASK_STATE_CANCELED"
    assert found["push"] == {
        "made": "hook",
        "got": "http://127.0.0.1:9/hook",
        "listed": ["hook"],
        "after_delete": [],
        "refused": "InvalidParamsError",
    }


@pytest.mark.parametrize("binding", BINDINGS)
async def test_a_question_pauses_the_task_and_the_answer_goes_on(
    tmp_path: Path, binding: str
) -> None:
    question = {"name": "ask_user", "arguments": {"question": "Which account?"}}
    replies = [{"tool_calls": [question]}, {"text": "Account 7 owes 42."}]
    async with a2a_server(tmp_path, replies) as t:
        # Under default deny a question is a tool call like any: it needs a grant.
        await t.grant("acme", "principal:alice", "ask_user", "read")
        found = await official_client(await spec_of(t, binding, "multi_turn", "asking"))
    assert found == {
        "asked": "TASK_STATE_INPUT_REQUIRED",
        "question": "Which account?",
        "done": "TASK_STATE_COMPLETED",
        "answer": "Account 7 owes 42.",
        "same_task": True,
    }


@pytest.mark.parametrize("binding", BINDINGS)
async def test_an_approval_and_another_tenant(tmp_path: Path, binding: str) -> None:
    async with a2a_server(tmp_path, [CALL, {"text": "done: 42"}]) as t:
        await t.grant("acme", "principal:alice", "calculator", "read", requires_approval=True)
        spec = await spec_of(t, binding, "approval", "helper")
        spec["approver_token"] = await key(t, "acme", "carol", "approver")
        spec["stranger_token"] = await key(t, "globex", "mallory")
        found = await official_client(spec)
    assert found["waiting"] == "TASK_STATE_INPUT_REQUIRED"
    [asked] = found["asked"]
    assert (asked["kind"], asked["tool_name"], asked["arguments"]) == (
        "approval",
        "calculator",
        {"expression": "6*7"},
    )
    # No A2A error says "not allowed": the SDK's generic error (gRPC: the PERMISSION_DENIED
    # status; JSON-RPC: an internal error), with agentd's reason in its message.
    kind = "A2AClientError" if binding == "GRPC" else "InternalError"
    assert found["owner_decides"].startswith(kind)
    assert "approver" in found["owner_decides"]
    assert found["stranger_get"] == "TaskNotFoundError"
    assert found["stranger_skills"] == []  # no grant in globex: nothing to use
    assert (found["done"], found["answer"]) == ("TASK_STATE_COMPLETED", "done: 42")


async def test_the_public_card_is_served_over_http(tmp_path: Path) -> None:
    async with a2a_server(tmp_path, []) as t:
        found = await official_client(await spec_of(t, "JSONRPC", "card", ""))
    card = found["card"]
    assert card["name"] == "agentd"
    assert card.get("skills", []) == []  # auth is on: the extended card lists them
    assert card["capabilities"]["extendedAgentCard"] is True
    [extension] = card["capabilities"]["extensions"]
    assert extension["params"]["header"] == "agentd-resume-after"
    grpc_interface = [i for i in card["supportedInterfaces"] if i["protocolBinding"] == "GRPC"]
    assert grpc_interface[0]["url"] == t.address
