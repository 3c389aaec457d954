"""Statistics of a tenant over [start, end), read from SQL (SQLite or PostgreSQL): its
tasks (`task_history`), tool calls (`tool_call_audit`) and model calls (`model_calls`,
the usage ledger).

Counts and sums are SQL aggregates over every row of the range; percentiles are taken in
Python over the latest `max_rows` values of each kind (tasks, timed tool calls, model
calls), so that an answer reads a bounded number of rows whatever the range. `sampled`
says that a kind had more.

What counts:
- A task once it has ended (completed, failed or cancelled), its `updated_at` (when it
  ended) in the range. Its duration is `updated_at - created_at`; its iterations are the
  ledger's rows of its task id (its own model calls, failed ones too, not its children's);
  its tokens (prompt + completion) and cost are those rows' sums. A task that has no stop
  reason counts in `tasks` and under its status, not in `stop_reasons`.
- A tool call: a row of the tool call audit, its `time` in the range. The audit has a row
  per attempt, so a retried call counts each attempt. It failed unless its outcome is
  `ok` (the tool answered, or the cache of tool results did) or `dispatched` (admitted
  and handed to the engine, which runs it as a task of its own: a delegation, a panel,
  `ask_user`); so refused, denied, invalid, failed, timeout, crashed, outcome_unknown,
  rejected, unavailable and not_found calls failed. Its latency is how long the tool
  ran: calls it did not run for (duration 0: denied, cached, dispatched) have none.
- A model call: a ledger row, its `at` in the range; failed when its outcome is
  `failed`; its latency `latency_ms`.
With an agent, only that agent's: its tasks, the tool calls of its tasks (by task id,
through task_history) and its model calls (the ledger's `agent`, not its children's);
`Stats.tasks.agent` is then that agent's id.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from records.tasks import TaskStatus
from records.usage.ledger import CallOutcome
from records.usage.stats import ProviderStats, Stats, StatsQuery, TaskStats, ToolStats, percentile
from stores.sql.database import Database
from stores.sql.schema import model_calls, task_history, tool_call_audit
from stores.sql.times import aware
from stores.usage.sql import count_where, total, utc

ENDED = sorted(s.value for s in TaskStatus if s.terminal)
"""The statuses of a task that has ended, as task_history stores them."""

SUCCEEDED = ("ok", "dispatched")
"""The outcomes of a tool call's audit record that are not a failure."""

_H = task_history.c
_T = tool_call_audit.c
_M = model_calls.c


def _p50_p95(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return percentile(ordered, 0.5), percentile(ordered, 0.95)


@dataclass(slots=True)
class _Tally:
    """The tasks of one agent (or of all), as they are read."""

    statuses: Counter[str] = field(default_factory=Counter)
    stop_reasons: Counter[str] = field(default_factory=Counter)
    seconds: list[float] = field(default_factory=list)
    iterations: list[float] = field(default_factory=list)
    tokens: int = 0
    cost: int = 0

    def stats(self, agent: str) -> TaskStats:
        p50_seconds, p95_seconds = _p50_p95(self.seconds)
        p50_iterations, p95_iterations = _p50_p95(self.iterations)
        return TaskStats(
            agent=agent,
            tasks=self.statuses.total(),
            completed=self.statuses[TaskStatus.COMPLETED.value],
            failed=self.statuses[TaskStatus.FAILED.value],
            cancelled=self.statuses[TaskStatus.CANCELLED.value],
            stop_reasons=dict(sorted(self.stop_reasons.items())),
            p50_seconds=p50_seconds,
            p95_seconds=p95_seconds,
            p50_iterations=p50_iterations,
            p95_iterations=p95_iterations,
            total_tokens=self.tokens,
            cost_micros=self.cost,
        )


class SqlStatsReader:
    """StatsReader on a database (owned by the caller): reads only, on its engine, in one
    connection per answer."""

    def __init__(self, database: Database) -> None:
        self._engine = database.engine

    async def stats(self, query: StatsQuery) -> Stats:
        async with self._engine.connect() as connection:
            tasks, agents, many_tasks = await _tasks(connection, query)
            tools, many_tool_calls = await _tools(connection, query)
            providers, many_calls = await _providers(connection, query)
        return Stats(
            tasks=tasks,
            agents=agents,
            tools=tools,
            providers=providers,
            sampled=many_tasks or many_tool_calls or many_calls,
        )


def _ended(query: StatsQuery) -> list[ColumnElement[bool]]:
    where = [
        _H.tenant == query.tenant,
        _H.status.in_(ENDED),
        _H.updated_at >= utc(query.start),
        _H.updated_at < utc(query.end),
    ]
    if query.agent:
        where.append(_H.agent_id == query.agent)
    return where


async def _tasks(
    connection: AsyncConnection, query: StatsQuery
) -> tuple[TaskStats, tuple[TaskStats, ...], bool]:
    """All the tasks' statistics (`agent` the query's), each agent's (most tasks first),
    and whether there were more than `max_rows` tasks."""
    ended = _ended(query)
    overall, by_agent = _Tally(), dict[str, _Tally]()
    counts = (
        select(_H.agent_id, _H.status, _H.stop_reason, func.count().label("n"))
        .where(*ended)
        .group_by(_H.agent_id, _H.status, _H.stop_reason)
    )
    for row in await connection.execute(counts):
        for tally in (overall, by_agent.setdefault(row.agent_id, _Tally())):
            tally.statuses[row.status] += row.n
            if row.stop_reason:
                tally.stop_reasons[row.stop_reason] += row.n
    spent = (
        select(
            _H.agent_id,
            total(_M.prompt_tokens + _M.completion_tokens).label("tokens"),
            total(_M.cost_micros).label("cost"),
        )
        .select_from(task_history.join(model_calls, _M.task_id == _H.task_id))
        .where(*ended, _M.tenant == query.tenant)
        .group_by(_H.agent_id)
    )
    for row in await connection.execute(spent):
        for tally in (overall, by_agent.setdefault(row.agent_id, _Tally())):
            tally.tokens += int(row.tokens)
            tally.cost += int(row.cost)
    iterations = (
        select(func.count()).where(_M.task_id == _H.task_id, _M.tenant == _H.tenant)
    ).scalar_subquery()
    latest = (
        select(_H.agent_id, _H.created_at, _H.updated_at, iterations.label("iterations"))
        .where(*ended)
        .order_by(_H.updated_at.desc(), _H.task_id.desc())
        .limit(query.max_rows)
    )
    for row in await connection.execute(latest):
        seconds = (aware(row.updated_at) - aware(row.created_at)).total_seconds()
        for tally in (overall, by_agent.setdefault(row.agent_id, _Tally())):
            tally.seconds.append(seconds)
            tally.iterations.append(float(row.iterations))
    agents = sorted(by_agent.items(), key=lambda item: (-item[1].statuses.total(), item[0]))
    return (
        overall.stats(query.agent),
        tuple(tally.stats(agent) for agent, tally in agents),
        overall.statuses.total() > query.max_rows,
    )


async def _tools(
    connection: AsyncConnection, query: StatsQuery
) -> tuple[tuple[ToolStats, ...], bool]:
    """Each tool's statistics (most calls first), and whether more than `max_rows` calls
    had a latency."""
    where = [_T.tenant == query.tenant, _T.time >= utc(query.start), _T.time < utc(query.end)]
    if query.agent:
        theirs = select(_H.task_id).where(_H.tenant == query.tenant, _H.agent_id == query.agent)
        where.append(_T.task_id.in_(theirs))
    ran = _T.duration_seconds > 0
    counts = (
        select(
            _T.tool_name,
            func.count().label("n"),
            count_where(_T.outcome.notin_(SUCCEEDED)).label("failed"),
            count_where(ran).label("timed"),
        )
        .where(*where)
        .group_by(_T.tool_name)
    )
    found = (await connection.execute(counts)).all()
    latest = (
        select(_T.tool_name, _T.duration_seconds)
        .where(*where, ran)
        .order_by(_T.time.desc(), _T.id.desc())
        .limit(query.max_rows)
    )
    seconds: dict[str, list[float]] = {}
    for row in await connection.execute(latest):
        seconds.setdefault(row.tool_name, []).append(float(row.duration_seconds))
    tools = []
    for row in sorted(found, key=lambda row: (-row.n, row.tool_name)):
        p50, p95 = _p50_p95(seconds.get(row.tool_name, []))
        tools.append(ToolStats(row.tool_name, row.n, int(row.failed), p50, p95))
    return tuple(tools), sum(int(row.timed) for row in found) > query.max_rows


async def _providers(
    connection: AsyncConnection, query: StatsQuery
) -> tuple[tuple[ProviderStats, ...], bool]:
    """Each provider's statistics (most calls first), and whether there were more than
    `max_rows` calls."""
    where = [_M.tenant == query.tenant, _M.at >= utc(query.start), _M.at < utc(query.end)]
    if query.agent:
        where.append(_M.agent == query.agent)
    counts = (
        select(
            _M.provider,
            func.count().label("n"),
            count_where(_M.outcome == CallOutcome.FAILED.value).label("failed"),
            total(_M.prompt_tokens + _M.completion_tokens).label("tokens"),
            total(_M.cost_micros).label("cost"),
        )
        .where(*where)
        .group_by(_M.provider)
    )
    found = (await connection.execute(counts)).all()
    latest = (
        select(_M.provider, _M.latency_ms)
        .where(*where)
        .order_by(_M.at.desc(), _M.call_id.desc())
        .limit(query.max_rows)
    )
    seconds: dict[str, list[float]] = {}
    for row in await connection.execute(latest):
        seconds.setdefault(row.provider, []).append(row.latency_ms / 1000)
    providers = []
    for row in sorted(found, key=lambda row: (-row.n, row.provider)):
        p50, p95 = _p50_p95(seconds.get(row.provider, []))
        providers.append(
            ProviderStats(
                row.provider, row.n, int(row.failed), p50, p95, int(row.tokens), int(row.cost)
            )
        )
    return tuple(providers), sum(row.n for row in found) > query.max_rows
