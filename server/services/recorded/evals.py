"""Datasets and evaluation runs: what EvalService's handlers call. Managing datasets and
starting runs needs a role of AGENTD_EVAL_ADMIN_ROLES (operator, admin); reading them
that or AGENTD_AUDITOR_ROLES. Every call sees the caller's tenant only.

`run` validates the whole request (the cases of the dataset, inline and drawn from
recorded tasks, the agent, the baseline, the gate, labels, parallelism), stores the run
RUNNING and hands its cases to the runner (`eval_runner`), then answers at once. A retry
with the same idempotency key answers the same run.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime

from agent.definitions.catalog import Agents
from agent.engine import Engine
from agent.limits import MAX_CONTEXT_BYTES, MAX_TASK_CHARS
from agent.requests import MAX_LABELS, label_violations
from core.errors import (
    AgentNotFoundError,
    DatasetNotFoundError,
    EvalRunNotFoundError,
    FieldViolation,
    InvalidArgumentError,
)
from core.identity import CallContext, Principal
from core.roles import Action, RoleTable
from records.agents.definition import split_reference
from records.evals.codec import cases_to_json, gate_to_json, grader_to_json
from records.evals.model import (
    Dataset,
    EvalCase,
    EvalRequest,
    EvalRun,
    EvalRunState,
    Grader,
    GraderKind,
    TaskSource,
    new_dataset_id,
    new_eval_run_id,
)
from records.evals.validation import check_cases, check_gate, grader_problems, with_ids
from records.paging import Page, TimeCursor
from records.tasks import TaskQuery, TaskStatus
from server.services.recorded.eval_runner import EvalRunner, PlannedCase
from stores.evals.base import EvalStore
from stores.idempotency.base import IdempotencyStore, scoped_key

MAX_NAME = 256
MAX_DESCRIPTION = 4096
MAX_PARALLELISM = 32
DEFAULT_PARALLELISM = 4
MAX_DRAWN = 500
DEFAULT_DRAWN = 50


def _now() -> datetime:
    return datetime.now(UTC)


class EvalService:
    def __init__(
        self,
        store: EvalStore,
        runner: EvalRunner,
        engine: Engine,
        agents: Agents,
        roles: RoleTable,
        keys: IdempotencyStore,
        *,
        replica: str = "",
        key_ttl_seconds: float = 86_400.0,
    ) -> None:
        self._store = store
        self._runner = runner
        self._engine = engine
        self._agents = agents
        self._roles = roles
        self._keys = keys
        self._replica = replica
        self._key_ttl = key_ttl_seconds

    def _manage(self, caller: Principal) -> None:
        self._roles.require(caller.roles, Action.MANAGE_EVALS)

    def _read(self, caller: Principal) -> None:
        self._roles.require(caller.roles, Action.READ_EVALS)

    async def create_dataset(self, caller: Principal, dataset: Dataset) -> Dataset:
        """Keep a dataset of the caller's tenant (its cases given ids where they had none)."""
        self._manage(caller)
        problems = []
        if not dataset.name.strip() or len(dataset.name) > MAX_NAME:
            problems.append(FieldViolation("dataset.name", f"is 1 to {MAX_NAME} characters"))
        if len(dataset.description) > MAX_DESCRIPTION:
            problems.append(FieldViolation("dataset.description", "is too long"))
        if not dataset.cases:
            problems.append(FieldViolation("dataset.cases", "has no case"))
        if problems:
            raise InvalidArgumentError(problems)
        cases = with_ids(dataset.cases)
        check_cases(cases, "dataset.cases", **TASK_LIMITS)
        kept = Dataset(
            dataset_id=new_dataset_id(),
            tenant=caller.tenant,
            name=dataset.name,
            description=dataset.description,
            cases=cases,
            created_by=caller.id,
            created_at=_now(),
        )
        await self._store.create_dataset(kept)
        return kept

    async def get_dataset(self, caller: Principal, dataset_id: str) -> Dataset:
        self._read(caller)
        found = await self._store.get_dataset(caller.tenant, dataset_id)
        if found is None:
            raise DatasetNotFoundError(dataset_id)
        return found

    async def list_datasets(
        self, caller: Principal, size: int, after: TimeCursor | None
    ) -> Page[Dataset, TimeCursor]:
        self._read(caller)
        return await self._store.list_datasets(caller.tenant, size, after)

    async def delete_dataset(self, caller: Principal, dataset_id: str) -> None:
        self._manage(caller)
        if not await self._store.delete_dataset(caller.tenant, dataset_id):
            raise DatasetNotFoundError(dataset_id)

    async def get_run(self, caller: Principal, eval_run_id: str) -> EvalRun:
        self._read(caller)
        found = await self._store.get(caller.tenant, eval_run_id)
        if found is None:
            raise EvalRunNotFoundError(eval_run_id)
        return found

    async def list_runs(
        self, caller: Principal, agent: str, size: int, after: TimeCursor | None
    ) -> Page[EvalRun, TimeCursor]:
        self._read(caller)
        if agent:
            try:
                split_reference(agent)
            except ValueError as bad:
                raise InvalidArgumentError([FieldViolation("agent", str(bad))]) from None
        return await self._store.list_runs(caller.tenant, agent, size, after)

    async def run(self, call: CallContext, request: EvalRequest) -> EvalRun:
        """Start an evaluation run (see the module's docstring); the run, RUNNING."""
        caller = call.principal
        self._manage(caller)
        _check_request(request)
        agent = await self._resolved(caller, request.agent)
        baseline = await self._baseline(caller, request.baseline_run_id)
        planned = await self._planned(caller, request)
        evaluation = EvalRun(
            eval_run_id=new_eval_run_id(),
            tenant=caller.tenant,
            agent=agent,
            dataset_id=request.dataset_id,
            gate=request.gate,
            created_by=caller.id,
            created_at=_now(),
            labels=dict(request.labels),
            total_cases=len(planned),
            baseline_run_id=request.baseline_run_id,
            owner=self._replica,
            heartbeat_at=_now(),
        )
        key = ""
        if request.idempotency_key:
            key = scoped_key("eval-run", caller.tenant, caller.id, request.idempotency_key)
            earlier = await self._keys.reserve(
                key, _fingerprint(request), evaluation.eval_run_id, self._key_ttl
            )
            if earlier is not None:
                return await self.get_run(caller, earlier)
        try:
            await self._store.create_run(evaluation)
        except BaseException:
            if key:  # not stored: a retry may start it
                await self._keys.release(key)
            raise
        parallelism = request.parallelism or DEFAULT_PARALLELISM
        self._runner.start(evaluation, call, planned, parallelism, baseline)
        return evaluation

    async def _resolved(self, caller: Principal, reference: str) -> str:
        """`id@version` of the agent to run as (`id`: its version now)."""
        try:
            agent_id, version = split_reference(reference)
        except ValueError as bad:
            raise InvalidArgumentError([FieldViolation("agent", str(bad))]) from None
        found = await self._agents.find(caller.tenant, agent_id, version)
        if found is None:
            raise AgentNotFoundError(reference)
        return f"{agent_id}@{found.agent.version}"

    async def _baseline(self, caller: Principal, eval_run_id: str) -> EvalRun | None:
        if not eval_run_id:
            return None
        baseline = await self._store.get(caller.tenant, eval_run_id)
        if baseline is None:
            raise EvalRunNotFoundError(eval_run_id)
        if baseline.state is not EvalRunState.FINISHED:
            problem = f"is {baseline.state.value}: a baseline is a finished run"
            raise InvalidArgumentError([FieldViolation("baseline_run_id", problem)])
        return baseline

    async def _planned(self, caller: Principal, request: EvalRequest) -> list[PlannedCase]:
        """Every case of the run, in order: the dataset's, the inline ones, the drawn ones."""
        stored: tuple[EvalCase, ...] = ()
        if request.dataset_id:
            stored = (await self.get_dataset(caller, request.dataset_id)).cases
        inline = with_ids(request.cases, len(stored) + 1)
        check_cases(inline, "cases", **TASK_LIMITS)
        planned = [PlannedCase(i, c) for i, c in enumerate((*stored, *inline))]
        if request.source is not None:
            drawn = await self._drawn(caller, request.source)
            planned += [
                PlannedCase(len(planned) + i, c, request.source.tools) for i, c in enumerate(drawn)
            ]
        ids = [p.case.case_id for p in planned]
        if len(set(ids)) != len(ids):
            twice = sorted({i for i in ids if ids.count(i) > 1})
            raise InvalidArgumentError(
                [FieldViolation("cases", f"case ids repeat: {', '.join(twice)}")]
            )
        if not planned:
            raise InvalidArgumentError([FieldViolation("cases", "the run has no case")])
        return planned

    async def _drawn(self, caller: Principal, source: TaskSource) -> list[EvalCase]:
        """Recorded tasks as cases (the ListTasks path: the caller's completed tasks,
        newest first), each graded by the source's graders, else by its recorded answer."""
        agent_id, version = "", None
        if source.agent:
            try:
                agent_id, version = split_reference(source.agent)
            except ValueError as bad:
                raise InvalidArgumentError([FieldViolation("from_tasks.agent", str(bad))]) from None
        query = TaskQuery(
            tenant=caller.tenant,
            owner=caller.id,
            statuses=frozenset({TaskStatus.COMPLETED}),
            limit=source.limit or DEFAULT_DRAWN,
            labels=dict(source.labels),
            agent=agent_id,
            agent_version=version,
        )
        tasks = (await self._engine.list_tasks(query)).items
        return [
            EvalCase(
                case_id=f"task-{task.task_id}",
                input=task.goal,
                from_task_id=task.task_id,
                graders=source.graders or (Grader(GraderKind.EXACT, expected=task.final_answer),),
            )
            for task in tasks
            if task.final_answer.strip() or source.graders
        ]


def _check_request(request: EvalRequest) -> None:
    """InvalidArgumentError naming every malformed field of the request but its cases
    (checked once they are known: `_planned`)."""
    problems: list[FieldViolation] = []
    if not request.agent:
        problems.append(FieldViolation("agent", "is required (id@version)"))
    if not 0 <= request.parallelism <= MAX_PARALLELISM:
        problems.append(FieldViolation("parallelism", f"is 1 to {MAX_PARALLELISM} (0: 4)"))
    if len(request.labels) >= MAX_LABELS:
        problems.append(FieldViolation("labels", f"has more than {MAX_LABELS - 1} labels"))
    problems += label_violations(request.labels)
    if not request.dataset_id and not request.cases and request.source is None:
        problems.append(FieldViolation("dataset_id", "is required (or cases, or from_tasks)"))
    if request.source is not None:
        problems += _source_problems(request.source)
    try:
        check_gate(request.gate)
    except InvalidArgumentError as error:
        problems += error.field_violations
    if problems:
        raise InvalidArgumentError(problems)


def _source_problems(source: TaskSource) -> list[FieldViolation]:
    problems = [
        FieldViolation(f"from_tasks.graders[{index}].{name}", why)
        for index, grader in enumerate(source.graders)
        for name, why in grader_problems(grader)
    ]
    if not 0 <= source.limit <= MAX_DRAWN:
        problems.append(FieldViolation("from_tasks.limit", f"is 1 to {MAX_DRAWN} (0: 50)"))
    if source.tools not in ("recorded", "read_only"):
        problems.append(FieldViolation("from_tasks.tools", "is recorded or read_only"))
    return problems


TASK_LIMITS = {"max_input": MAX_TASK_CHARS, "max_context": MAX_CONTEXT_BYTES}
"""A case's input and context within a task's own limits (else it could never start)."""


def _fingerprint(request: EvalRequest) -> str:
    """Everything a run is asked to do: a retry with the same idempotency key and another
    request (a tightened gate, other cases) is a conflict, never the first run's answer."""
    source = request.source
    data = {
        "agent": request.agent,
        "dataset": request.dataset_id,
        "cases": cases_to_json(request.cases),
        "source": None
        if source is None
        else {
            "agent": source.agent,
            "labels": dict(source.labels),
            "limit": source.limit,
            "tools": source.tools,
            "graders": [grader_to_json(g) for g in source.graders],
        },
        "baseline": request.baseline_run_id,
        "parallelism": request.parallelism,
        "gate": gate_to_json(request.gate),
        "labels": dict(request.labels),
    }
    text = json.dumps(data, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()
