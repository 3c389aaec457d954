"""Running an evaluation run's cases: each a task started as the caller through the
engine's one door (admission, grants, budgets), labelled with the run, followed to its
end, graded, and its result stored as it finishes (any replica reading the run sees the
progress). Then the run's end: its aggregate, comparison with the baseline and gate.

Concurrency and lifecycle: at most `parallelism` cases of a run run at once. A run is a
job of this process; `held` is the background job that owns them: it renews their
heartbeat and, every round, marks FAILED the runs of any replica whose heartbeat stopped
("the server running it stopped"). When it is cancelled (the server stops), the runs it
holds are cancelled, their running cases' tasks cancelled, and the runs marked FAILED.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Protocol

import structlog

from agent.engine import Engine
from agent.evals.graders import Outcome, grade
from agent.evals.judge import JudgeModels, judge
from core.errors import AgentdError
from core.identity import CallContext
from records.evals.model import (
    ANSWER_CHARS,
    EVAL_RUN_LABEL,
    CaseResult,
    EvalCase,
    EvalRun,
    EvalRunState,
    GraderKind,
    GraderResult,
    ReplayReport,
)
from records.evals.scoring import finished
from records.evals.validation import task_context
from records.events import ToolCallStarted
from records.requests import TaskRequest
from records.tasks import Task, TaskStatus
from stores.evals.base import EvalStore

log = structlog.get_logger(__name__)

STOPPED = "the server running it stopped"
CANCELLED = "the case's task was cancelled"
"""How a case result begins whose task someone cancelled (or the server, stopping): the
case did not run, so neither did the run (it ends FAILED, not FINISHED)."""
NO_REPLAY = "replaying recorded tasks is not available on this server (no ReplayTask wired)"


class Replayer(Protocol):
    """ReplayTask as the runner needs it (the replay branch's service supplies it)."""

    async def replay(
        self, call: CallContext, task_id: str, agent: str, tools: str, labels: Mapping[str, str]
    ) -> Task:
        """A new task replaying the recorded `task_id` as `agent` (`id@version`), its tool
        calls answered from the recording (`tools`: recorded or read_only), started."""
        ...

    async def report(self, task: Task) -> ReplayReport | None:
        """What the replaying task reports of its replay, once it ended."""
        ...


@dataclass(frozen=True, slots=True)
class PlannedCase:
    """A case at its position in the run; `tools` for a replayed one."""

    position: int
    case: EvalCase
    tools: str = "recorded"


def _now() -> datetime:
    return datetime.now(UTC)


class EvalRunner:
    def __init__(
        self,
        engine: Engine,
        store: EvalStore,
        judges: JudgeModels,
        replayer: Replayer | None = None,
        *,
        case_timeout_seconds: float,
        beat_seconds: float = 10.0,
        now: Callable[[], datetime] = _now,
    ) -> None:
        self._engine = engine
        self._store = store
        self._judges = judges
        self._replayer = replayer
        self._case_timeout = case_timeout_seconds
        self._beat = beat_seconds
        self._now = now
        self._jobs: dict[str, asyncio.Task[None]] = {}

    @property
    def running(self) -> tuple[str, ...]:
        """The ids of the runs this process is running."""
        return tuple(self._jobs)

    def start(
        self,
        evaluation: EvalRun,
        call: CallContext,
        cases: Sequence[PlannedCase],
        parallelism: int,
        baseline: EvalRun | None,
    ) -> None:
        """Run `run`'s cases from now on (a job of this process; `run` already stored)."""
        job = asyncio.create_task(
            self._run(evaluation, call, cases, parallelism, baseline),
            name=f"agentd-eval-{evaluation.eval_run_id}",
        )
        self._jobs[evaluation.eval_run_id] = job
        job.add_done_callback(lambda _: self._jobs.pop(evaluation.eval_run_id, None))

    async def _run(
        self,
        evaluation: EvalRun,
        call: CallContext,
        cases: Sequence[PlannedCase],
        parallelism: int,
        baseline: EvalRun | None,
    ) -> None:
        slots = asyncio.Semaphore(parallelism)
        results: dict[int, CaseResult] = {}

        async def one(planned: PlannedCase) -> None:
            async with slots:
                result = await self._case(evaluation, call, planned)
            results[planned.position] = result
            await self._store.add_result(
                evaluation.tenant, evaluation.eval_run_id, planned.position, result, self._now()
            )

        try:
            async with asyncio.TaskGroup() as group:
                for planned in cases:
                    group.create_task(one(planned))
            ordered = [results[p] for p in sorted(results)]
            cut = next((r for r in ordered if r.error.startswith(CANCELLED)), None)
            if cut is not None:
                await self._fail(evaluation, f"case {cut.case_id}: {cut.error}; not every case ran")
            else:
                await self._store.finish(finished(evaluation, ordered, baseline, self._now()))
        except asyncio.CancelledError:
            await asyncio.shield(self._fail(evaluation, STOPPED))
            raise
        except Exception as error:
            log.exception("an evaluation run failed", eval_run_id=evaluation.eval_run_id)
            await self._fail(evaluation, f"the run could not go on: {_first(error)}")

    async def _fail(self, evaluation: EvalRun, error: str) -> None:
        ended = replace(evaluation, state=EvalRunState.FAILED, error=error, finished_at=self._now())
        with contextlib.suppress(Exception):
            await self._store.finish(ended)

    async def _case(
        self, evaluation: EvalRun, call: CallContext, planned: PlannedCase
    ) -> CaseResult:
        case, loop = planned.case, asyncio.get_running_loop()
        began = loop.time()
        labels = {**evaluation.labels, EVAL_RUN_LABEL: evaluation.eval_run_id}
        if case.from_task_id and self._replayer is None:
            return CaseResult(case.case_id, error=NO_REPLAY)
        try:
            task = await self._task(evaluation, call, planned, labels)
        except AgentdError as error:
            return CaseResult(case.case_id, error=f"the case's task did not start: {error.message}")
        try:
            async with asyncio.timeout(self._case_timeout):
                calls = await self._tool_calls(task)
        except TimeoutError:
            await self._engine.cancel_quietly(
                task.tenant, task.task_id, "evaluation case timed out"
            )
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):  # the engine may be closing with the server
                await self._engine.cancel_quietly(task.tenant, task.task_id, STOPPED)
            raise
        else:
            return await self._graded(
                case, await self._engine.find(task.tenant, task.task_id), calls, loop.time() - began
            )
        return CaseResult(
            case.case_id,
            task.task_id,
            error=f"the case's task took longer than {self._case_timeout:g} s",
        )

    async def _task(
        self,
        evaluation: EvalRun,
        call: CallContext,
        planned: PlannedCase,
        labels: Mapping[str, str],
    ) -> Task:
        """The case's task, started as the caller (a fresh call context: the RPC is over)."""
        case = planned.case
        context = CallContext(principal=call.principal)
        if case.from_task_id and self._replayer is not None:
            return await self._replayer.replay(
                context, case.from_task_id, evaluation.agent, planned.tools, labels
            )
        request = TaskRequest(
            goal=case.input, context=task_context(case), labels=labels, agent=evaluation.agent
        )
        task, _ = await self._engine.start_or_steer(request, context)
        return task

    async def _tool_calls(self, task: Task) -> tuple[str, ...]:
        """The tools the task called, in order, as it runs (until it ends)."""
        calls: list[str] = []
        async for event in self._engine.events(task.tenant, task.task_id):
            if isinstance(event.payload, ToolCallStarted):
                calls.append(event.payload.tool_name)
        return tuple(calls)

    async def _graded(
        self, case: EvalCase, task: Task, calls: tuple[str, ...], seconds: float
    ) -> CaseResult:
        outcome = Outcome(task.final_answer, calls, task.usage, seconds)
        grades: list[GraderResult] = []
        for grader in case.graders:
            if grader.kind is GraderKind.JUDGE:
                grades.append(await judge(grader, case.input or task.goal, outcome, self._judges))
            else:
                grades.append(grade(grader, outcome))
        completed = task.status is TaskStatus.COMPLETED
        error = ""
        if not completed:
            why = task.failure.message if task.failure is not None else task.stop_detail
            ended = CANCELLED if task.status is TaskStatus.CANCELLED else "the case's task failed"
            error = ended + (f": {why}" if why else "")
        report = await self._replayer.report(task) if case.from_task_id and self._replayer else None
        return CaseResult(
            case_id=case.case_id,
            task_id=task.task_id,
            passed=completed and all(g.passed for g in grades),
            graders=tuple(grades),
            answer=task.final_answer[:ANSWER_CHARS],
            usage=task.usage,
            seconds=round(seconds, 3),
            error=error,
            replay=report,
        )

    async def held(self) -> None:
        """The background job owning this process's runs (see the module's docstring)."""
        try:
            while True:
                now = self._now()
                with contextlib.suppress(Exception):
                    await self._store.beat(self.running, now)
                    stale = now - timedelta(seconds=self._beat * 6)
                    failed = await self._store.fail_stale(stale, STOPPED, now)
                    if failed:
                        log.warning(
                            "evaluation runs whose server stopped marked failed", runs=failed
                        )
                await asyncio.sleep(self._beat)
        finally:
            jobs = list(self._jobs.values())
            for job in jobs:
                job.cancel()
            await asyncio.gather(*jobs, return_exceptions=True)


def _first(error: BaseException) -> BaseException:
    """The first error a task group's error holds (itself for any other)."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error
