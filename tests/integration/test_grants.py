"""Grants through the real server, auth on and default deny: CallTool, ListTools, and the
tools an agent may use, whatever its model or a tool's output asks for."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from agentd.v1 import tasks_pb2, tools_pb2
from agentd_client import errors as client_errors
from tests.helpers import recording_http_server
from tests.integration.harness import assert_well_formed, final, of_kind
from tests.integration.trust import trusted

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING


async def test_call_tool_needs_a_grant_and_keeps_its_conditions(tmp_path: Path) -> None:
    with recording_http_server() as (url, received):
        async with trusted(tmp_path, grants_refresh_seconds=0.2) as t:
            alice = await t.client("acme", "alice", "analyst")
            with pytest.raises(client_errors.PermissionDeniedError, match="no grant"):
                await alice.call_tool("calculator", {"expression": "1+1"})
            assert await alice.list_tools() == []

            await t.grant("acme", "role:analyst", "category:math", "read")
            allowed = f"{url}/record/"
            web = await t.grant(
                "acme", "principal:alice", "http_request", "write", arguments={"url": (allowed,)}
            )
            assert [tool.name for tool in await alice.list_tools()] == [
                "calculator",
                "http_request",
            ]
            assert (await alice.call_tool("calculator", {"expression": "6*7"})).text == "42"
            ok = await alice.call_tool(
                "http_request", {"url": f"{url}/record/1", "method": "POST", "body": "in"}
            )
            assert not ok.HasField("error")
            for outside in (f"{url}/json", f"{url}/recordings", "http://127.0.0.1:1/record/x"):
                with pytest.raises(client_errors.PermissionDeniedError, match="not under"):
                    await alice.call_tool(
                        "http_request", {"url": outside, "method": "POST", "body": "out"}
                    )
            assert received == ["in"]  # nothing outside the prefix was sent

            # Another tenant's principal of the same name gets nothing from acme's grants.
            twin = await t.client("globex", "alice", "analyst")
            with pytest.raises(client_errors.PermissionDeniedError):
                await twin.call_tool("calculator", {"expression": "1+1"})

            # Revoked: refused once the grants are reloaded (every 0.2 s here).
            assert await t.server.durable.grants.revoke(web.grant_id)
            await asyncio.sleep(0.6)
            with pytest.raises(client_errors.PermissionDeniedError):
                await alice.call_tool("http_request", {"url": f"{url}/record/2"})

            records = await t.tool_records("acme")
            decided = [(r.tool_name, r.decision, r.rule.split(":")[0], r.outcome) for r in records]
            assert decided == [
                ("calculator", "denied", "default", "denied"),
                ("calculator", "allowed", "grant", "ok"),
                ("http_request", "allowed", "grant", "ok"),
                *[("http_request", "denied", "grant", "denied")] * 3,
                ("http_request", "denied", "default", "denied"),
            ]
            assert records[2].rule == f"grant:{web.grant_id}"


async def test_a_grant_outside_its_time_window_does_not_apply(tmp_path: Path) -> None:
    async with trusted(tmp_path) as t:
        alice = await t.client("acme", "alice")
        # A window that is never now: the minute that ended an hour ago, every day.
        past = datetime.now(UTC) - timedelta(hours=1)
        window = f"{past:%H:%M}-{past + timedelta(minutes=1):%H:%M}"
        grant = await t.grant("acme", "principal:alice", "calculator", "read", window=window)
        with pytest.raises(client_errors.PermissionDeniedError, match="valid only"):
            await alice.call_tool("calculator", {"expression": "1+1"})
        assert (await t.tool_records("acme"))[-1].rule == f"grant:{grant.grant_id}"


async def test_an_agent_acts_with_its_callers_permissions_whatever_a_tool_output_says(
    tmp_path: Path,
) -> None:
    with recording_http_server() as (url, _):
        replies = [
            {"tool_calls": [{"name": "http_request", "arguments": {"url": f"{url}/injection"}}]},
            # The model obeys the injected text and asks for a tool the caller may not use.
            {
                "tool_calls": [
                    {"name": "write_file", "arguments": {"path": "pwned.txt", "content": "owned"}}
                ]
            },
            {"text": "The quarterly number is 42."},
        ]
        async with trusted(tmp_path, replies) as t:
            alice = await t.client("acme", "alice")
            await t.grant(
                "acme", "principal:alice", "http_request", "write", arguments={"url": (url,)}
            )
            events = [e async for e in alice.execute("summarise the report", mode=FC)]
            assert_well_formed(events)
            assert "42" in final(events).text
            offered = [tool["function"]["name"] for tool in t.llm.requests[0]["tools"]]
            assert offered == ["http_request"]  # the model is shown only what alice may use
            finished = of_kind(events, "tool_call_finished")
            assert [f.tool_name for f in finished] == ["http_request", "write_file"]
            assert "not available to this task" in finished[1].error.message
            assert not (tmp_path / "workspace" / "pwned.txt").exists()
            refused = [r for r in await t.tool_records("acme") if r.tool_name == "write_file"]
            assert len(refused) == 1
            assert (refused[0].decision, refused[0].rule, refused[0].outcome) == (
                "denied",
                "default:deny",
                "denied",
            )
            assert refused[0].task_id == events[0].task_id
            assert refused[0].arguments == {"path": "pwned.txt", "content": "owned"}


async def test_tenant_admins_manage_their_grants_by_rpc(tmp_path: Path) -> None:
    async with trusted(tmp_path) as t:
        admin = await t.client("acme", "ada", "admin")
        alice = await t.client("acme", "alice", "analyst")
        other_admin = await t.client("globex", "gil", "admin")
        read = tools_pb2.PERMISSION_LEVEL_READ
        with pytest.raises(client_errors.PermissionDeniedError, match="admin"):
            await alice.create_grant("principal:alice", "*", tools_pb2.PERMISSION_LEVEL_ADMIN)

        grant = await admin.create_grant(
            "role:analyst",
            "read_file",
            read,
            window="00:00-24:00",
            arguments={"path": ["reports/"]},
            expires_at=datetime.now(UTC) + timedelta(hours=1),
        )
        assert (grant.created_by, grant.subject, grant.window) == (
            "ada",
            "role:analyst",
            "00:00-24:00",
        )
        assert list(grant.arguments["path"].prefixes) == ["reports/"]
        # In force on this replica at once.
        assert [tool.name for tool in await alice.list_tools()] == ["read_file"]
        assert [g.grant_id for g in await admin.list_grants()] == [grant.grant_id]
        assert await other_admin.list_grants() == []

        # Another tenant's admin cannot touch it: NOT_FOUND, as for an unknown id.
        with pytest.raises(client_errors.GrantNotFoundError):
            await other_admin.revoke_grant(grant.grant_id)
        revoked = await admin.revoke_grant(grant.grant_id)
        assert revoked.HasField("revoked_at")
        assert await alice.list_tools() == []
        with pytest.raises(client_errors.GrantNotFoundError):
            await admin.revoke_grant(grant.grant_id)
        assert len(await admin.list_grants(include_revoked=True)) == 1


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"subject": "alice"}, "grant.subject"),
        ({"subject": "role:"}, "grant.subject"),
        ({"tool": "../etc/passwd"}, "grant.tool"),
        ({"tool": "category:"}, "grant.tool"),
        ({"level": tools_pb2.PERMISSION_LEVEL_UNSPECIFIED}, "grant.level"),
        ({"level": 99}, "grant.level"),
        ({"window": "whenever"}, "grant.window"),
        ({"arguments": {"path": []}}, "grant.arguments[path]"),
        ({"arguments": {"path": ["x" * 5000]}}, "grant.arguments[path]"),
        ({"arguments": {f"a{n}": ["/"] for n in range(20)}}, "grant.arguments"),
        ({"expires_at": datetime.now(UTC) - timedelta(seconds=1)}, "grant.expires_at"),
    ],
)
async def test_bad_grants_are_refused_field_by_field(
    tmp_path: Path, changes: dict[str, Any], field: str
) -> None:
    async with trusted(tmp_path) as t:
        admin = await t.client("acme", "ada", "admin")
        request: dict[str, Any] = {
            "subject": "principal:alice",
            "tool": "calculator",
            "level": tools_pb2.PERMISSION_LEVEL_READ,
            **changes,
        }
        with pytest.raises(client_errors.InvalidArgumentError) as refused:
            await admin.create_grant(
                request.pop("subject"), request.pop("tool"), request.pop("level"), **request
            )
        assert field in [v.field for v in refused.value.field_violations]
        assert await admin.list_grants(include_revoked=True) == []


async def test_a_tenant_admin_cannot_grant_admin_level_through_the_api(tmp_path: Path) -> None:
    """Not to itself on every tool (the escalation), nor to anyone: ADMIN grants are the
    operator's. EXECUTE and below stay the tenant admin's to give."""
    async with trusted(tmp_path) as t:
        admin = await t.client("acme", "ada", "admin")
        for subject in ("principal:ada", "role:admin", "principal:alice"):
            with pytest.raises(client_errors.PermissionDeniedError, match="operator"):
                await admin.create_grant(subject, "*", tools_pb2.PERMISSION_LEVEL_ADMIN)
        granted = await admin.create_grant("role:ops", "*", tools_pb2.PERMISSION_LEVEL_EXECUTE)
        assert [g.grant_id for g in await admin.list_grants()] == [granted.grant_id]


async def test_create_grant_answers_with_warnings_and_makes_the_grant(tmp_path: Path) -> None:
    async with trusted(tmp_path) as t:
        admin = await t.client("acme", "ada", "admin")
        await t.client("acme", "alice", "analyst")  # her key says she is an analyst
        write, read = tools_pb2.PERMISSION_LEVEL_WRITE, tools_pb2.PERMISSION_LEVEL_READ
        narrow = await admin.create_grant(
            "principal:alice", "write_file", write, arguments={"path": ["reports/"]}
        )
        assert list(narrow.warnings) == []
        broad = await admin.create_grant("role:analyst", "*", write)
        assert list(broad.warnings) == [
            f"{broad.grant_id} is shadowed where more specific grants apply (they decide "
            "those calls: its level, window and argument rules do not count there; it asks "
            f"no approval): {narrow.grant_id} (principal:alice write_file WRITE; path under "
            "reports/) for principal alice"
        ]
        idle = await admin.create_grant("principal:alice", "read_file", read)
        assert list(idle.warnings) == [
            f"{idle.grant_id} has no effect: {broad.grant_id} (role:analyst * "
            "WRITE) already allows every call it covers (principal alice holds role analyst "
            "on each of its API keys)"
        ]
        listed = await admin.list_grants()
        assert [g.grant_id for g in listed] == [narrow.grant_id, broad.grant_id, idle.grant_id]
        assert all(not g.warnings for g in listed)  # said once, when it was made


async def test_an_agent_naming_a_tool_its_caller_has_no_grant_for_gains_nothing(
    tmp_path: Path,
) -> None:
    """An agent's tools only narrow what its caller may use: a tool it names that the
    caller has no grant for is neither listed nor offered, and a call the model makes to
    it anyway is refused and audited."""
    folder = tmp_path / "agents"
    folder.mkdir()
    (folder / "ops.yaml").write_text(
        "id: ops\ninstructions: You run operations.\ntools: [calculator, write_file]\n"
    )
    replies = [
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "x.txt", "content": "x"}}]},
        {"text": "Done."},
    ]
    async with trusted(tmp_path, replies, agents_dir=folder) as t:
        alice = await t.client("acme", "alice", "analyst")
        await t.grant("acme", "role:analyst", "category:math", "read")
        assert [tool.name for tool in await alice.list_tools(agent="ops")] == ["calculator"]
        events = [e async for e in alice.execute("tidy up", mode=FC, agent="ops")]
        assert_well_formed(events)  # it completed
        assert final(events).text == "Done."
        offered = [tool["function"]["name"] for tool in t.llm.requests[0]["tools"]]
        assert offered == ["calculator"]
        (finished,) = of_kind(events, "tool_call_finished")
        assert (finished.tool_name, finished.WhichOneof("outcome")) == ("write_file", "error")
        assert "not available to this task" in finished.error.message
        assert not (tmp_path / "workspace" / "x.txt").exists()
        (refused,) = [r for r in await t.tool_records("acme") if r.tool_name == "write_file"]
        assert (refused.decision, refused.rule, refused.outcome) == (
            "denied",
            "default:deny",
            "denied",
        )
        assert refused.task_id == events[0].task_id
