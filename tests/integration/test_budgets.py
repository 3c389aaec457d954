"""Budgets, usage and statistics through the real server and the fake model: a lead whose
children use up its agent's budget ends with them stopped, not overspent; a soft limit
parks a task until ApproveToolCall lets it past; GetUsage and GetStats agree with tasks
that ran on a provider that failed over to a priced one."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from agent.llm.fakes.server import FakeOpenAIServer
from agentd.v1 import tasks_pb2, usage_pb2
from agentd_client import errors as client_errors
from tests.integration.harness import harness, model_settings, of_kind
from tests.servers import QUIET, running_server, settings_in

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
ADMIN = ("approver", "auditor", "admin")
ENDED = (
    tasks_pb2.TASK_STATUS_COMPLETED,
    tasks_pb2.TASK_STATUS_FAILED,
    tasks_pb2.TASK_STATUS_CANCELLED,
)

LEAD = """\
id: lead
instructions: You are the lead.
mode: function_calling
tools: [current_time]
delegates: [researcher]
"""
RESEARCHER = """\
id: researcher
instructions: You are the researcher.
mode: function_calling
tools: [calculator]
"""


def agents(folder: Path, **files: str) -> Path:
    where = folder / "agents"
    where.mkdir()
    for name, text in files.items():
        (where / f"{name}.yaml").write_text(text)
    return where


def research(n: int) -> dict[str, Any]:
    return {"name": "agent_researcher", "arguments": {"task": f"find fact {n}"}}


async def test_a_lead_whose_children_use_up_its_budget_stops_with_them(tmp_path: Path) -> None:
    usage = {"prompt_tokens": 400, "completion_tokens": 20}
    replies = [
        {"match": "You are the researcher", "text": "a fact", "usage": usage, "repeat": -1,
         "delay_seconds": 0.05},
        {"match": "You are the lead", "tool_calls": [research(n) for n in range(6)],
         "usage": usage},
        {"match": "You are the lead", "text": "all found", "usage": usage, "repeat": -1},
    ]  # fmt: skip
    folder = agents(tmp_path, lead=LEAD, researcher=RESEARCHER)
    limit = 2_000
    async with harness(
        tmp_path, replies, agents_dir=folder, anonymous_roles=ADMIN, llm_max_tokens=64
    ) as h:
        budget = await h.client.create_budget(
            usage_pb2.BUDGET_SCOPE_AGENT,
            usage_pb2.BUDGET_UNIT_TOKENS,
            usage_pb2.BUDGET_WINDOW_DAY,
            subject="lead",
            limit=limit,
        )
        events = await h.run("research six facts", agent="lead", max_iterations=5)
        lead = await h.client.get_task(events[0].task_id)
        children = [
            await h.client.get_task(c.child_task_id) for c in of_kind(events, "subtask_started")
        ]
        await asyncio.sleep(0.3)  # the last usage rows are written beside the runs
        spent = await h.client.get_usage(group_by=[usage_pb2.USAGE_GROUP_AGENT])
        by_agent = {r.agent: r.total_tokens for r in spent.rows}

        assert lead.status in ENDED
        # it stopped for the budget, or for its children's failures (three in a row) first
        assert lead.stop_reason in (
            tasks_pb2.STOP_REASON_BUDGET_EXHAUSTED,
            tasks_pb2.STOP_REASON_TOOL_FAILURES,
        ), tasks_pb2.StopReason.Name(lead.stop_reason)
        stopped = [c for c in children if c.stop_reason == tasks_pb2.STOP_REASON_BUDGET_EXHAUSTED]
        assert stopped, [tasks_pb2.StopReason.Name(c.stop_reason) for c in children]
        assert all(c.status in ENDED for c in children)
        assert spent.total.total_tokens <= limit  # the fake counts less than agentd reserves
        assert by_agent["researcher"] > 0  # the children drew on the lead's budget
        [standing] = (await h.client.list_budgets()).budgets
        assert standing.budget_id == budget.budget_id
        assert standing.spent == spent.total.total_tokens
        assert standing.reserved == 0


async def test_a_soft_limit_parks_a_task_until_it_is_approved(tmp_path: Path) -> None:
    usage = {"prompt_tokens": 400, "completion_tokens": 20}
    replies = [
        {"tool_calls": [{"name": "calculator", "arguments": {"expression": "1+1"}}],
         "usage": {"prompt_tokens": 50_000, "completion_tokens": 20}},
        {"tool_calls": [{"name": "calculator", "arguments": {"expression": "2+2"}}],
         "usage": usage},
        {"text": "four", "usage": usage},
    ]  # fmt: skip
    async with harness(tmp_path, replies, anonymous_roles=ADMIN, llm_max_tokens=64) as h:
        budget = await h.client.create_budget(
            usage_pb2.BUDGET_SCOPE_TENANT,
            usage_pb2.BUDGET_UNIT_TOKENS,
            usage_pb2.BUDGET_WINDOW_MONTH,
            soft_limit=50_000,  # the first call fits; the second would go past it
        )
        task = await h.client.start_task("add", tools=["calculator"], mode=FC)
        async for event in h.client.stream_task_events(task.task_id):
            if event.WhichOneof("payload") == "approval_requested":
                break  # it waits for a person
        assert len(h.llm.requests) == 1  # parked before its second call
        slot = f"budget:{budget.budget_id}"
        await h.client.approve_tool_call(task.task_id, slot, "approve")
        events = [e async for e in h.client.stream_task_events(task.task_id)]
        requested = of_kind(events, "approval_requested")
        assert [(r.call_id, r.tool_name) for r in requested] == [(slot, "budget")]
        assert requested[0].arguments["soft_limit"] == 50_000
        decided = of_kind(events, "approval_decided")
        assert [d.call_id for d in decided] == [slot]
        done = await h.client.get_task(task.task_id)
        assert done.status == tasks_pb2.TASK_STATUS_COMPLETED
        assert done.final_answer == "four"


async def test_usage_and_statistics_agree_with_what_ran(tmp_path: Path) -> None:
    usage = {"prompt_tokens": 1_000, "completion_tokens": 100}
    down = [{"error": {"status": 503, "message": "overloaded"}, "repeat": -1}]
    answers = [{"text": "done", "usage": usage, "repeat": -1}]
    price = {"input": 2_000_000, "output": 8_000_000}  # micro-units per million tokens
    async with FakeOpenAIServer(down) as primary, FakeOpenAIServer(answers) as backup:
        providers = {
            "providers": {
                "primary": {"base_url": primary.base_url, "models": ["big"]},
                "backup": {"base_url": backup.base_url,
                           "models": [{"name": "small", "prices": price}]},
            }
        }  # fmt: skip
        (tmp_path / "providers.json").write_text(json.dumps(providers))
        folder = agents(
            tmp_path,
            helper="id: helper\nmode: function_calling\nmodel: big\nprovider: primary\n"
            "fallback: [{provider: backup, model: small}]\n",
        )
        config = settings_in(
            tmp_path,
            **{**QUIET, **model_settings(backup)},
            agents_dir=folder,
            providers_file=tmp_path / "providers.json",
            llm_max_attempts=1,
            anonymous_roles=ADMIN,
            provider_breaker_failures=100,  # every task tries the primary first
        )
        async with running_server(config) as running:
            client = running.client(timeout=20)
            for n in range(3):
                events = [e async for e in client.execute(f"job {n}", agent="helper", mode=FC)]
                assert events[-1].status_changed.current == tasks_pb2.TASK_STATUS_COMPLETED
            await asyncio.sleep(0.3)  # the last usage rows are written beside the runs
            by_provider = await client.get_usage(group_by=[usage_pb2.USAGE_GROUP_PROVIDER])
            rows = {r.provider: r for r in by_provider.rows}
            cost = (1_000 * 2_000_000 + 100 * 8_000_000) // 1_000_000  # 2,800 micro-units
            assert (rows["primary"].calls, rows["primary"].failed_calls) == (3, 3)
            assert (rows["backup"].calls, rows["backup"].failed_calls) == (3, 0)
            assert rows["backup"].cost_micros == 3 * cost
            assert rows["backup"].total_tokens == 3 * 1_100
            assert by_provider.total.cost_micros == 3 * cost
            assert by_provider.currency == "USD"
            by_model = await client.get_usage(group_by=[usage_pb2.USAGE_GROUP_MODEL])
            assert {r.model: r.calls for r in by_model.rows} == {"big": 3, "small": 3}

            stats = await client.get_stats()
            assert stats.tasks.tasks == 3
            assert stats.tasks.completed == 3
            assert stats.tasks.success_rate == 1.0
            assert [(r.stop_reason, r.tasks) for r in stats.tasks.stop_reasons] == [
                (tasks_pb2.STOP_REASON_FINAL_ANSWER, 3)
            ]
            assert stats.tasks.cost_micros == 3 * cost
            assert [(a.agent, a.tasks) for a in stats.agents] == [("helper", 3)]
            providers_seen = {p.provider: (p.calls, p.failed_calls) for p in stats.providers}
            assert providers_seen == {"primary": (3, 3), "backup": (3, 0)}

            mine = await client.get_task(events[0].task_id)
            assert mine.usage.cost_micros == cost


async def test_budget_rpcs_refuse_bad_input_and_other_callers(tmp_path: Path) -> None:
    day = (usage_pb2.BUDGET_UNIT_TOKENS, usage_pb2.BUDGET_WINDOW_DAY)
    async with harness(tmp_path, [{"text": "x", "repeat": -1}], anonymous_roles="approver") as h:
        with pytest.raises(client_errors.PermissionDeniedError) as refused:
            await h.client.create_budget(usage_pb2.BUDGET_SCOPE_TENANT, *day, limit=10)
        assert "managing budgets" in refused.value.message
    async with harness(tmp_path / "2", [{"text": "x"}], anonymous_roles=ADMIN) as h:
        bad: list[dict[str, Any]] = [
            {"scope": usage_pb2.BUDGET_SCOPE_TENANT, "subject": "x", "limit": 5},
            {"scope": usage_pb2.BUDGET_SCOPE_USER, "limit": 5},
            {"scope": usage_pb2.BUDGET_SCOPE_AGENT, "subject": "Not An Id!", "limit": 5},
            {"scope": usage_pb2.BUDGET_SCOPE_TENANT},
            {"scope": usage_pb2.BUDGET_SCOPE_TENANT, "limit": 5, "soft_limit": 9},
            {"scope": usage_pb2.BUDGET_SCOPE_TENANT, "limit": -1},
        ]
        for fields in bad:
            with pytest.raises(client_errors.InvalidArgumentError) as invalid:
                await h.client.create_budget(unit=day[0], window=day[1], **fields)
            assert invalid.value.field_violations, fields
        money = (usage_pb2.BUDGET_UNIT_MONEY, usage_pb2.BUDGET_WINDOW_MONTH)
        scope = usage_pb2.BUDGET_SCOPE_USER
        first = await h.client.create_budget(scope, *money, subject="alice", limit=5_000_000)
        assert first.currency == "USD"
        assert first.window_start.seconds > 0
        with pytest.raises(client_errors.BudgetExistsError) as twice:
            await h.client.create_budget(scope, *money, subject="alice", limit=1)
        assert twice.value.metadata["budget_id"] == first.budget_id
        with pytest.raises(client_errors.BudgetNotFoundError):
            await h.client.update_budget("bgt_missing", limit=5)
        updated = await h.client.update_budget(first.budget_id, limit=7_000_000)
        assert updated.limit == 7_000_000
        gone = await h.client.delete_budget(first.budget_id)
        assert gone.budget_id == first.budget_id
        assert not (await h.client.list_budgets()).budgets
