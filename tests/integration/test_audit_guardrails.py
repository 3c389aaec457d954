"""Guardrail decisions in ListAuditRecords, through the real server with auth on: written
through the server's own sink (`DurableStores.guardrails`), read back by an auditor a page
at a time with the async and the sync client and with `agentd audit --kind guardrail`,
filtered by check, action, tool and principal; another tenant's auditor sees none, and a
caller without the auditor role is refused."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from agentd.v1 import tasks_pb2
from agentd_client import errors as client_errors
from agentd_client.sync import AgentClient as SyncClient
from clients import audit_cli
from records.guardrails.events import GuardrailRecord
from records.keys import new_key
from server.commands.cli import build_parser
from tests.integration.trust import Trust, trusted

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
T0 = datetime(2026, 12, 12, 9, 0, tzinfo=UTC)


def _decision(n: int, tenant: str = "acme", **extra: str) -> GuardrailRecord:
    return GuardrailRecord(
        time=T0 + timedelta(seconds=n),
        tenant=tenant,
        principal_id=extra.get("principal_id", "alice"),
        check=extra.get("check", "no-cards"),
        rule=extra.get("rule", "card"),
        point=extra.get("point", "output"),
        action=extra.get("action", "redact"),
        reason="a payment card number",
        text_digest=f"{n:064x}",
        task_id="task_1",
        agent="support",
        tool_name=extra.get("tool_name", ""),
        call_id=extra.get("call_id", ""),
        trace_id=f"{n:032x}",
    )


DECISIONS = [
    _decision(1),
    _decision(2, principal_id="bob"),
    _decision(
        3,
        check="no-secrets",
        rule="deny:aws-key",
        action="block",
        point="tool_arguments",
        tool_name="http.fetch",
        call_id="call_9",
    ),
    _decision(4, check="moderation", rule="moderation:harassment", action="record"),
    _decision(5, tenant="globex", principal_id="mallory"),
]


async def _written(t: Trust) -> None:
    for decision in DECISIONS:
        await t.server.durable.guardrails.write(decision)


async def test_an_auditor_reads_the_tenants_guardrail_decisions_page_by_page(
    tmp_path: Path,
) -> None:
    async with trusted(tmp_path, [{"text": "hello"}]) as t:
        await _written(t)
        alice = await t.client("acme", "alice")
        dana = await t.client("acme", "dana", "auditor")
        eve = await t.client("globex", "eve", "auditor")

        first = await dana.list_audit_records("guardrail", page_size=3)
        rest = await dana.list_audit_records("guardrail", page_size=3,
                                             page_token=first.next_page_token)  # fmt: skip
        assert (len(first.records), len(rest.records), rest.next_page_token) == (3, 1, "")
        records = [r.guardrail for r in [*first.records, *rest.records]]
        assert {r.WhichOneof("record") for r in [*first.records, *rest.records]} == {"guardrail"}
        assert [r.trace_id for r in records] == [d.trace_id for d in DECISIONS[:4]]
        blocked = records[2]
        assert (blocked.check, blocked.rule, blocked.point, blocked.action) == (
            "no-secrets", "deny:aws-key", "tool_arguments", "block",
        )  # fmt: skip
        assert (blocked.tool_name, blocked.call_id, blocked.task_id, blocked.agent) == (
            "http.fetch", "call_9", "task_1", "support",
        )  # fmt: skip
        assert (blocked.tenant, blocked.principal_id) == ("acme", "alice")
        assert blocked.text_digest == DECISIONS[2].text_digest
        assert blocked.reason == "a payment card number"
        assert blocked.time.ToDatetime(tzinfo=UTC) == DECISIONS[2].time

        async def traces(**filters: str) -> list[str]:
            page = await dana.list_audit_records("guardrail", **filters)  # type: ignore[arg-type]
            return [r.guardrail.trace_id for r in page.records]

        trace = [d.trace_id for d in DECISIONS]
        assert await traces(check="no-secrets") == [trace[2]]
        assert await traces(outcome="record") == [trace[3]]
        assert await traces(tool_name="http.fetch") == [trace[2]]
        assert await traces(principal_id="bob") == [trace[1]]
        assert await traces(check="no-cards", principal_id="alice") == [trace[0]]
        # The other kinds hold none of them.
        tools = await dana.list_audit_records("tool_call")
        assert all(r.WhichOneof("record") == "tool_call" for r in tools.records)

        theirs = await eve.list_audit_records("guardrail")
        assert [r.guardrail.trace_id for r in theirs.records] == [trace[4]]
        with pytest.raises(client_errors.PermissionDeniedError, match="auditor"):
            await alice.list_audit_records("guardrail")
        # A task filter is checked as for the other kinds: a task the tenant cannot see
        # is NOT_FOUND; a task of theirs gives its decisions.
        with pytest.raises(client_errors.TaskNotFoundError):
            await dana.list_audit_records("guardrail", task_id="task_1")
        events = [e async for e in alice.execute("say hello", mode=FC)]
        ran = replace(DECISIONS[0], task_id=events[0].task_id, trace_id="f" * 32)
        await t.server.durable.guardrails.write(ran)
        assert await traces(task_id=ran.task_id) == [ran.trace_id]
        with pytest.raises(client_errors.TaskNotFoundError):
            await eve.list_audit_records("guardrail", task_id=ran.task_id)
        with pytest.raises(client_errors.InvalidArgumentError, match="check"):
            await dana.list_audit_records("guardrail", check="x" * 257)


async def test_the_sync_client_and_the_audit_command_read_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with trusted(tmp_path) as t:
        await _written(t)
        key, plaintext = new_key("acme", "dana", ("auditor",))
        await t.server.durable.api_keys.add(key)
        dana = t.running.client(api_key=plaintext, timeout=20)

        def read_sync() -> list[str]:
            with SyncClient(t.address, api_key=plaintext, timeout=20) as client:
                page = client.list_audit_records("guardrail", check="moderation")
                return [r.guardrail.rule for r in page.records]

        assert await asyncio.to_thread(read_sync) == ["moderation:harassment"]

        capsys.readouterr()
        args = build_parser().parse_args(
            ["audit", "--kind", "guardrail", "--jsonl", "--outcome", "block"]
        )
        assert await audit_cli.run_audit(dana, args) == 0
        lines = capsys.readouterr().out.splitlines()
        assert [json.loads(line)["call_id"] for line in lines] == ["call_9"]

        args = build_parser().parse_args(["audit", "--kind", "guardrail", "--limit", "3"])
        args.json = False
        assert await audit_cli.run_audit(dana, args) == 0
        lines = capsys.readouterr().out.splitlines()
        assert len(lines) == 3
        assert lines[2].split()[1:] == [
            "alice", "no-secrets", "block", "tool_arguments:http.fetch", "deny:aws-key", "task_1",
        ]  # fmt: skip
