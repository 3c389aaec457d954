"""Inbound triggers end to end on one server (auth on, SQLite): a trigger made over gRPC
by an operator's key, deliveries signed by the `standardwebhooks` package (an
independent signer) POSTed to the HTTP address. A delivery sent three times (and three
at once) starts one task, its JSON body under `trigger.body`; a wrong signature, a
timestamp outside the window, an odd one (a non-ASCII digit, thousands of digits) and an
unsigned delivery are 401 and start nothing;
another tenant neither sees nor deletes the trigger; the secret is sealed in its row;
the creator's key revoked, a new delivery is 403 naming why. The CLI, over the client,
creates, rotates (the old secret verifying within its ttl), lists and deletes."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
import standardwebhooks
from sqlalchemy import select

from agent.llm.fakes.script import Script
from agent.llm.fakes.server import FakeOpenAIServer
from agentd.v1 import schedules_pb2 as pb
from agentd.v1 import schedules_pb2_grpc as pb_grpc
from agentd_client.errors import AgentdError
from clients import cli
from core.keyring import new_key as new_ring_key
from records.keys import new_key
from records.tasks import TaskQuery
from server.commands.cli import build_parser
from stores.triggers.tables import triggers as triggers_table
from tests.integration.harness import model_settings
from tests.integration.openai.serving import free_port
from tests.servers import QUIET, Running, running_server, settings_in


@asynccontextmanager
async def served(
    tmp_path: Path, rate_limits: str = ""
) -> AsyncIterator[tuple[Running, str, dict[str, str]]]:
    """The server, its HTTP address's base URL, and keys by name (alice: acme operator;
    gil: globex operator)."""
    port = free_port()
    async with FakeOpenAIServer(Script([{"text": "Triaged."}], cycle=True)) as llm:
        settings = settings_in(
            tmp_path,
            **{**QUIET, "auth": "on", "rate_limits": rate_limits},
            **model_settings(llm),
            keys=new_ring_key(),
            http_address=f"127.0.0.1:{port}",
            http_doors=["triggers"],
            trigger_tolerance_seconds=300,
        )
        async with running_server(settings) as running:
            keys = {}
            for name, tenant in (("alice", "acme"), ("gil", "globex")):
                key, plaintext = new_key(tenant, name, ("operator",))
                await running.server.durable.api_keys.add(key)
                keys[name] = plaintext
            yield running, f"http://127.0.0.1:{port}", keys


def as_(key: str) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {key}")]


def signed(secret: str, webhook_id: str, body: bytes, at: datetime | None = None) -> dict[str, str]:
    at = at or datetime.now(UTC)
    return {
        "content-type": "application/json",
        "webhook-id": webhook_id,
        "webhook-timestamp": str(int(at.timestamp())),
        "webhook-signature": standardwebhooks.Webhook(secret).sign(webhook_id, at, body),
    }


async def create(running: Running, key: str) -> pb.Trigger:
    stub = pb_grpc.TriggerServiceStub(running.channel)
    draft = pb.Trigger(display_name="tickets", task=pb.ScheduledTask(goal="Triage"))
    return await stub.CreateTrigger(pb.CreateTriggerRequest(trigger=draft), metadata=as_(key))


async def test_a_flood_of_junk_from_one_address_never_starves_real_deliveries(
    tmp_path: Path,
) -> None:
    """Behind a load balancer every sender has the proxy's address: made-up ids and bad
    signatures empty only the refusals' bucket of that address, never a known trigger's,
    and each trigger has a bucket of its own."""
    async with (
        served(tmp_path, rate_limits="Execute=3/m") as (running, url, keys),
        httpx.AsyncClient() as http,
    ):
        made, other = await create(running, keys["alice"]), await create(running, keys["gil"])
        body = b'{"ticket": 1}'
        junk = []
        for n in range(6):
            made_up = f"{url}/v1/triggers/trg_{n}"
            answer = await http.post(made_up, content=body, headers=signed("whsec_QUJD", "m", body))
            junk.append(answer.status_code)
        forged = signed("whsec_" + "QUJD" * 8, "msg_f", body)
        for _ in range(3):
            answer = await http.post(f"{url}/v1/triggers/{made.id}", content=body, headers=forged)
            junk.append(answer.status_code)
        assert junk == [404] * 3 + [429] * 6  # the refusals' bucket, throttled
        statuses: list[int] = []
        for trigger in (made, made, made, other):
            target = f"{url}/v1/triggers/{trigger.id}"
            headers = signed(trigger.secret, f"msg_{len(statuses)}", body)
            statuses.append((await http.post(target, content=body, headers=headers)).status_code)
        assert statuses == [202, 202, 202, 202]  # acme's trigger, then globex's: buckets apart
        headers = signed(made.secret, "msg_9", body)
        answer = await http.post(f"{url}/v1/triggers/{made.id}", content=body, headers=headers)
        assert answer.status_code == 429  # the trigger's own bucket


async def tasks_of(running: Running, trigger_id: str) -> list[Any]:
    query = TaskQuery(tenant="acme", owner="alice", labels={"agentd.trigger": trigger_id})
    return list((await running.server.engine.list_tasks(query)).items)


async def test_a_signed_trigger_starts_one_task_however_often_it_is_delivered(
    tmp_path: Path,
) -> None:
    async with served(tmp_path) as (running, url, keys), httpx.AsyncClient() as http:
        stub = pb_grpc.TriggerServiceStub(running.channel)
        draft = pb.Trigger(
            display_name="tickets",
            task=pb.ScheduledTask(goal="Triage the ticket", labels={"team": "support"}),
        )
        made = await stub.CreateTrigger(
            pb.CreateTriggerRequest(trigger=draft), metadata=as_(keys["alice"])
        )
        assert made.secret.startswith("whsec_")
        assert made.principal == "alice"
        assert made.task.labels["agentd.trigger"] == made.id
        target = f"{url}/v1/triggers/{made.id}"

        body = json.dumps({"ticket": 7, "title": "Refund"}).encode()
        answers = []
        for _ in range(3):  # each re-sent delivery is signed anew, as senders retry
            answer = await http.post(
                target, content=body, headers=signed(made.secret, "msg_1", body)
            )
            answers.append((answer.status_code, answer.json()))
        assert [a[0] for a in answers] == [202, 202, 202]
        assert len({a[1]["task_id"] for a in answers}) == 1
        started = await tasks_of(running, made.id)
        assert [t.task_id for t in started] == [answers[0][1]["task_id"]]
        assert started[0].context["trigger"]["body"] == {"ticket": 7, "title": "Refund"}
        assert started[0].labels == {"team": "support", "agentd.trigger": made.id}

        at_once = await asyncio.gather(  # one delivery racing itself: still one task
            *(
                http.post(target, content=body, headers=signed(made.secret, "msg_c", body))
                for _ in range(3)
            )
        )
        assert [a.status_code for a in at_once] == [202, 202, 202]
        assert len({a.json()["task_id"] for a in at_once}) == 1

        wrong = signed("whsec_" + "QUJD" * 8, "msg_2", body)
        late = signed(made.secret, "msg_3", body, datetime.now(UTC) - timedelta(seconds=301))
        bare = {"content-type": "application/json"}
        for headers in (wrong, late, bare):
            refused = await http.post(target, content=body, headers=headers)
            assert refused.status_code == 401, refused.text
        sent = {k.encode(): v.encode() for k, v in signed(made.secret, "msg_5", body).items()}
        for stamp in ("\xb2".encode("latin-1"), b"1" * 4301):  # int() reads neither
            odd = {**sent, b"webhook-timestamp": stamp}
            refused = await http.post(target, content=body, headers=odd)
            assert refused.status_code == 401, refused.text
        tampered = signed(made.secret, "msg_4", body)
        refused = await http.post(target, content=body + b" ", headers=tampered)
        assert refused.status_code == 401
        assert len(await tasks_of(running, made.id)) == 2  # nothing started by the refused

        got = await stub.GetTrigger(pb.GetTriggerRequest(id=made.id), metadata=as_(keys["alice"]))
        assert (got.secret, got.deliveries, got.refused) == ("", 2, 6)

        for call in (
            stub.GetTrigger(pb.GetTriggerRequest(id=made.id), metadata=as_(keys["gil"])),
            stub.DeleteTrigger(pb.DeleteTriggerRequest(id=made.id), metadata=as_(keys["gil"])),
        ):
            with pytest.raises(grpc.aio.AioRpcError) as other:
                await call
            assert other.value.code() == grpc.StatusCode.NOT_FOUND
        listed = await stub.ListTriggers(pb.ListTriggersRequest(), metadata=as_(keys["gil"]))
        assert list(listed.triggers) == []

        database = running.server.durable.database
        async with database.engine.connect() as connection:
            row = (await connection.execute(select(triggers_table))).mappings().one()
        key_text = made.secret.removeprefix("whsec_")
        assert all(key_text not in str(value) for value in row.values())
        assert str(row["secret"]).startswith("enc:v1:")

        text_body = b"build 12 failed"
        text_headers = {**signed(made.secret, "msg_5", text_body), "content-type": "text/plain"}
        answer = await http.post(target, content=text_body, headers=text_headers)
        assert answer.status_code == 202
        task = await running.server.engine.find("acme", answer.json()["task_id"])
        assert task.context["trigger"]["body"] == "build 12 failed"

        key_id = next(
            k.key_id for k in await running.server.durable.api_keys.list() if k.principal == "alice"
        )
        await running.server.durable.api_keys.revoke(key_id)
        body = b'{"ticket": 8}'
        revoked = await http.post(target, content=body, headers=signed(made.secret, "msg_6", body))
        assert revoked.status_code == 403
        assert "revoked" in revoked.json()["error"]["message"]
        assert len(await tasks_of(running, made.id)) == 3


async def test_the_cli_over_the_client_creates_rotates_lists_and_deletes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with served(tmp_path) as (running, url, keys), httpx.AsyncClient() as http:
        client = running.client(api_key=keys["alice"])
        assert await client.health("agentd.v1.TriggerService") == "SERVING"
        unsupported = pb.Trigger(task=pb.ScheduledTask(goal="go", conversation_id="conv_1"))
        with pytest.raises(AgentdError, match=r"trigger\.task\.conversation_id"):
            await client.create_trigger(unsupported)

        async def agentd(*argv: str) -> str:
            args = build_parser().parse_args(argv)
            assert await cli._COMMANDS[args.command](client, args) == 0
            return capsys.readouterr().out

        made = await agentd(
            "triggers", "create", "Look at the build", "--label", "ci=yes", "--spend-limit", "0.25"
        )
        trigger_id = re.findall(r"trg_[0-9a-f]{20}", made)[0]
        assert (await client.get_trigger(trigger_id)).task.spend_limit == 250_000
        [old] = re.findall(r"secret \(shown only now\): (whsec_\S+)", made)
        rotated = await agentd("triggers", "rotate", trigger_id, "--previous-ttl", "60")
        [new] = re.findall(r"secret \(shown only now\): (whsec_\S+)", rotated)
        assert new != old
        target = f"{url}/v1/triggers/{trigger_id}"
        for secret, webhook_id in ((old, "m1"), (new, "m2")):  # the old one within its ttl
            body = b'{"build": 1}'
            answer = await http.post(target, content=body, headers=signed(secret, webhook_id, body))
            assert answer.status_code == 202, answer.text
        [row] = [
            line for line in (await agentd("triggers", "list")).splitlines() if trigger_id in line
        ]
        assert row.split()[-4:-2] == ["2", "0"]  # deliveries, refused
        assert "secret" not in await agentd("triggers", "get", trigger_id)
        await agentd("triggers", "delete", trigger_id)
        body = b"{}"
        gone = await http.post(target, content=body, headers=signed(new, "m3", body))
        assert gone.status_code == 404
