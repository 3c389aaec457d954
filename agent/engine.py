"""The engine: accepts tasks, runs each in its own asyncio task, and reports every step.

Lifecycle of a task: PENDING (stored, first event) -> RUNNING -> COMPLETED
(with a final answer, possibly partial when a limit stopped the work),
FAILED (with an error) or CANCELLED. The terminal status event is always the
last event of the task's log. A terminal state is never overwritten: a late
write after a cancel is dropped by the store.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import structlog

from agent import events as ev
from agent import serialization
from agent.admission import Admission, Ticket
from agent.limits import (
    EngineConfig,
    LimitReached,
    ModelOutputInvalid,
)
from agent.llm.base import ModelError
from agent.llm.roles import ModelRoles
from agent.modes import Outcome, function_calling, plan_execute, planner, text_react
from agent.modes.router import choose_mode
from agent.modes.synthesis import notes_answer, partial_outcome
from agent.plan import Plan
from agent.redaction import redact_event
from agent.requests import TaskRequest, validate_request
from agent.resume import RunCheckpoint
from agent.run import TaskRun
from agent.tasks import ExecutionMode, StopReason, Task, TaskFailure, TaskStatus, new_task_id
from core.errors import (
    ApprovalNotPendingError,
    FieldViolation,
    IdempotencyConflictError,
    InvalidArgumentError,
    LLMNotConfiguredError,
    PlanInvalidError,
    ResourceExhaustedError,
    RoleRequiredError,
    TaskAlreadyTerminalError,
    TaskNotFoundError,
)
from core.faults import as_store_error
from core.identity import CallContext, Principal
from core.secrets import scrub
from stores.approvals.base import ApprovalBox
from stores.approvals.memory import InMemoryApprovalBox
from stores.cancellations.base import CancelBus
from stores.cancellations.memory import InMemoryCancelBus
from stores.checkpoints.base import CheckpointStore
from stores.history.base import TaskHistory, TaskQuery
from stores.history.memory import InMemoryTaskHistory
from stores.idempotency.base import IdempotencyStore, scoped_key
from stores.idempotency.memory import InMemoryIdempotencyStore
from stores.leases.base import Leases
from stores.leases.memory import InMemoryLeases
from stores.tasks.base import TaskStore
from tools.approvals import Verdict
from tools.model import ToolSpec
from tools.registry import ToolRegistry

log = structlog.get_logger(__name__)

MODES: dict[ExecutionMode, Callable[[TaskRun], Awaitable[Outcome]]] = {
    ExecutionMode.FUNCTION_CALLING: function_calling.run,
    ExecutionMode.TEXT_REACT: text_react.run,
    ExecutionMode.PLAN_AND_EXECUTE: plan_execute.run,
}
LLM_SETTINGS = (
    "AGENTD_LLM_MODEL",
    "AGENTD_LLM_BASE_URL (or OPENAI_BASE_URL)",
    "AGENTD_LLM_API_KEY (or OPENAI_API_KEY)",
)


class Engine:
    """Runs tasks. One per process; safe to use from many RPCs at once."""

    def __init__(
        self,
        models: ModelRoles | None,
        registry: ToolRegistry,
        store: TaskStore,
        config: EngineConfig | None = None,
        *,
        history: TaskHistory | None = None,
        idempotency: IdempotencyStore | None = None,
        key_ttl_seconds: float = 4200.0,
        cancel_bus: CancelBus | None = None,
        leases: Leases | None = None,
        checkpoints: CheckpointStore | None = None,
        takeover_interval_seconds: float = 1.0,
        approvals: ApprovalBox | None = None,
    ) -> None:
        self._approvals = approvals or InMemoryApprovalBox()
        self._bus = cancel_bus or InMemoryCancelBus()
        self._listener: asyncio.Task[None] | None = None
        self._leases = leases or InMemoryLeases()
        # Checkpoints matter only when another process can resume the task.
        self._checkpoints = checkpoints if self._leases.shared else None
        self._takeover_interval = takeover_interval_seconds
        self._supervisors: list[asyncio.Task[None]] = []
        self._letting_go: set[str] = set()
        """Tasks to stop without ending them: handed over, or their lease was lost."""
        self._closing = False
        self._models = models
        self._history = history or InMemoryTaskHistory()
        self._idempotency = idempotency or InMemoryIdempotencyStore()
        self._key_ttl = key_ttl_seconds
        self._registry = registry
        self._store = store
        self.config = config or EngineConfig()
        self._running: dict[str, tuple[asyncio.Task[None], TaskRun]] = {}
        self._cancel_reasons: dict[str, str] = {}
        self._gates: dict[str, asyncio.Future[None]] = {}
        self._admission = Admission(
            self.config.max_running_tasks,
            self.config.max_queued_tasks,
            tenant_queue_share=self.config.tenant_queue_share,
        )

    @property
    def configured(self) -> bool:
        return self._models is not None

    def running_count(self) -> int:
        """Tasks in this process now (running or waiting for a slot)."""
        return len(self._running)

    @property
    def replica(self) -> str:
        return self._leases.replica

    def listen_for_cancellations(self) -> None:
        """Start following cancellations published by other replicas."""
        if self._listener is None:
            self._listener = asyncio.create_task(self._follow_cancellations())

    def supervise(self) -> None:
        """Start renewing this process's leases and, if it has a model to run them with,
        taking over orphaned tasks."""
        if self._leases.shared and not self._supervisors:
            self._supervisors = [asyncio.create_task(self._keep_leases(), name="agentd-leases")]
            if self.configured:
                self._supervisors.append(
                    asyncio.create_task(self._take_over_orphans(), name="agentd-takeover")
                )

    async def _follow_cancellations(self) -> None:
        try:
            async for task_id, reason in self._bus.subscribe():
                entry = self._running.get(task_id)
                if entry is not None:
                    self._cancel_reasons[task_id] = reason
                    entry[0].cancel()
        except Exception:
            log.exception("cancellation listener stopped")

    # -- validation ------------------------------------------------------------

    def _require_models(self) -> ModelRoles:
        if self._models is None:
            raise LLMNotConfiguredError(LLM_SETTINGS)
        return self._models

    def _new_run(
        self,
        task: Task,
        call: CallContext,
        tools: dict[str, ToolSpec],
        budget: int,
        *,
        persist: bool = True,
        resumed: RunCheckpoint | None = None,
    ) -> TaskRun:
        if persist:  # a task outlives the call that started it: its deadline is not the task's
            call = replace(call, deadline_seconds=None)
        return TaskRun(
            task=task,
            call=call,
            models=self._require_models(),
            registry=self._registry,
            store=self._store,
            config=self.config,
            token_budget=budget or self.config.token_budget,
            tool_specs=tools,
            persist=persist,
            checkpoints=self._checkpoints,
            resumed=resumed,
            deadline_at=resumed.deadline_at if resumed else None,
            approvals=self._approvals,
        )

    # -- RPC entry points --------------------------------------------------------

    async def plan(
        self, text: str, tools: Sequence[str], context: Mapping[str, Any], call: CallContext
    ) -> Plan:
        """Run the planner only. Raises PlanInvalidError when no valid plan comes."""
        self._require_models()
        specs, _ = validate_request(self._registry, text, tools, context, call)
        task = Task(
            task_id="plan",
            tenant=call.principal.tenant,
            owner=call.principal.id,
            task=text,
            context=dict(context),
        )
        run = self._new_run(task, call, specs, 0, persist=False)
        try:
            return await planner.make_plan(run)
        except LimitReached as limit:
            raise PlanInvalidError([limit.detail]) from None

    async def start(
        self, request: TaskRequest, call: CallContext, *, deferred: bool = False
    ) -> Task:
        """Store a new task, start running it, and return it (its first event is written).

        With `deferred`, the task stays PENDING until `begin(task_id)`: a
        streaming RPC begins it once the caller has the first event, so the
        task id goes out before the task's work competes for the loop.
        """
        self._require_models()
        # A place in this process first, before any other work and any store: a full
        # server answers at once, as cheaply as it can.
        ticket = self._admission.admit(call.principal.tenant)
        try:
            specs, iterations = validate_request(
                self._registry,
                request.task,
                request.tools,
                request.context,
                call,
                request.max_iterations,
                request,
            )
            if request.token_budget < 0:
                raise InvalidArgumentError([FieldViolation("token_budget", "must not be negative")])
            return await self._accept(request, call, specs, iterations, ticket, deferred)
        except BaseException:
            ticket.release()
            raise

    async def _accept(
        self,
        request: TaskRequest,
        call: CallContext,
        specs: dict[str, ToolSpec],
        iterations: int,
        ticket: Ticket,
        deferred: bool,
    ) -> Task:
        task_id = new_task_id()
        if request.idempotency_key:
            scoped = scoped_key(
                "exec", call.principal.tenant, call.principal.id, request.idempotency_key
            )
            try:
                earlier = await self._idempotency.reserve(
                    scoped, request.fingerprint(), task_id, self._key_ttl
                )
            except IdempotencyConflictError:
                raise IdempotencyConflictError(request.idempotency_key) from None
            if earlier is not None:
                ticket.release()  # the earlier task holds its own place
                try:
                    return await self._store.get(call.principal.tenant, earlier)
                except TaskNotFoundError:
                    return await self._history.get(call.principal.tenant, earlier)
        mode = request.mode
        if mode is ExecutionMode.AUTO:
            mode = choose_mode(request.task, self.config.tool_calling)
        task = Task(
            task_id=task_id,
            tenant=call.principal.tenant,
            owner=call.principal.id,
            task=request.task,
            mode=mode,
            context=dict(request.context),
            tools=tuple(specs),
            max_iterations=iterations,
            trace_id=call.trace_id,
            labels=dict(request.labels),
            time_limit_seconds=request.timeout_seconds or None,
        )
        await self._store.create(task)
        await self._leases.acquire(task.tenant, task.task_id)
        run = self._new_run(task, call, specs, request.token_budget)
        await run.emit(ev.StatusChanged(TaskStatus.PENDING, None, f"accepted; mode {mode.value}"))
        gate = _gate(open_now=not deferred)
        self._gates[task.task_id] = gate
        self._launch(run, gate, ticket)
        return task

    def _launch(self, run: TaskRun, gate: asyncio.Future[None], ticket: Ticket) -> None:
        task_id = run.task.task_id
        runner = asyncio.create_task(self._run(run, gate, ticket), name=f"agentd-task-{task_id}")
        self._running[task_id] = (runner, run)

        def done(_: asyncio.Task[None]) -> None:
            self._running.pop(task_id, None)
            self._gates.pop(task_id, None)
            ticket.release()

        runner.add_done_callback(done)

    def begin(self, task_id: str) -> None:
        """Let a deferred task run. Idempotent."""
        gate = self._gates.pop(task_id, None)
        if gate is not None and not gate.done():
            gate.set_result(None)

    async def approve(
        self, call: CallContext, task_id: str, call_id: str, verdict: Verdict
    ) -> Task:
        """Leave a human's verdict for a call waiting for approval; the task (on whichever
        replica runs it) resumes with it. Returns the task's state when it was recorded."""
        tenant = call.principal.tenant
        task = await self._store.get(tenant, task_id)
        roles = self.config.approver_roles
        if not set(call.principal.roles) & set(roles):
            raise RoleRequiredError("approving tool calls", roles)
        if task.status.terminal:
            raise ApprovalNotPendingError(task_id, call_id)
        await self._approvals.decide(tenant, task_id, call_id, verdict)
        log.info(
            "tool call decided",
            task_id=task_id,
            call_id=call_id,
            decision=verdict.label,
            decided_by=verdict.decided_by,
            trace_id=call.trace_id,
        )
        return await self._store.get(tenant, task_id)

    async def cancel(self, tenant: str, task_id: str, reason: str) -> Task:
        """Cancel a task: stop its model and tool calls, keep partial results, end it CANCELLED."""
        task = await self._store.get(tenant, task_id)
        if task.status.terminal:
            raise TaskAlreadyTerminalError(task_id, task.status.value)
        entry = self._running.get(task_id)
        if entry is not None:
            runner, _ = entry
            self._cancel_reasons[task_id] = reason
            runner.cancel()
            await asyncio.wait({runner}, timeout=5)
            task = await self._store.get(tenant, task_id)
            if task.status.terminal:
                return task
        # Not running here, or cancelled before its coroutine ever started: end it in the store.
        try:
            cancelled = await self._store.set_status(
                tenant, task_id, TaskStatus.CANCELLED, detail=reason
            )
        except TaskAlreadyTerminalError:
            return await self._store.get(tenant, task_id)
        self._cancel_reasons.pop(task_id, None)
        await self._store.append_event(
            task_id,
            task.trace_id,
            redact_event(
                ev.StatusChanged(TaskStatus.CANCELLED, task.status, reason, StopReason.CANCELLED)
            ),
        )
        try:
            await self._bus.publish(task_id, reason)  # the replica running it stops now
        except Exception:
            log.exception("could not publish a cancellation", task_id=task_id)
        cancelled = await self._store.get(tenant, task_id)
        await self._history.record(cancelled)
        return cancelled

    async def find(self, tenant: str, task_id: str) -> Task:
        """A task of `tenant`: live, or from the history once the live store let it go.
        TaskNotFoundError for an unknown id and for another tenant's task alike."""
        try:
            return await self._store.get(tenant, task_id)
        except TaskNotFoundError:
            return await self._history.get(tenant, task_id)

    async def list_tasks(self, query: TaskQuery) -> list[Task]:
        """A page of the caller's tasks; unfinished ones show their live state."""
        tasks = await self._history.list(query)
        for index, task in enumerate(tasks):
            if not task.status.terminal:
                with contextlib.suppress(TaskNotFoundError):
                    tasks[index] = await self._store.get(task.tenant, task.task_id)
        return tasks

    async def cancel_quietly(self, tenant: str, task_id: str, reason: str) -> None:
        """Cancel unless the task already ended (for callers that are going away)."""
        with contextlib.suppress(TaskAlreadyTerminalError, TaskNotFoundError):
            await asyncio.shield(self.cancel(tenant, task_id, reason))

    async def drain(self, seconds: float) -> None:
        """Let running and queued tasks finish for up to `seconds` (new ones are refused)."""
        runners = {runner for runner, _ in self._running.values()}
        if runners and seconds > 0:
            log.info("waiting for running tasks", tasks=len(runners), seconds=seconds)
            await asyncio.wait(runners, timeout=seconds)

    async def close(self, reason: str = "the server shut down") -> None:
        """Stop whatever still runs (after the server's grace period).

        With shared leases, each such task keeps its checkpoint and its lease is
        released, so another process resumes it at once; otherwise it ends CANCELLED.
        """
        self._closing = True
        background = [t for t in (self._listener, *self._supervisors) if t is not None]
        for job in background:
            job.cancel()
        if background:
            await asyncio.wait(background, timeout=5)
        for task_id, (runner, _) in list(self._running.items()):
            if self._leases.shared:
                self._letting_go.add(task_id)
            else:
                self._cancel_reasons[task_id] = reason
            runner.cancel()
        if self._running:
            await asyncio.wait({r for r, _ in self._running.values()}, timeout=5)
        if self._models is not None:
            await self._models.close()

    # -- leases and takeover -----------------------------------------------------

    async def _keep_leases(self) -> None:
        """Renew this process's leases; stop the tasks whose lease it cannot keep."""
        ttl = self._leases.ttl_seconds
        renewed = time.monotonic()
        while True:
            await asyncio.sleep(ttl / 3)
            held = list(self._running)
            try:
                lost = await self._leases.renew(held)
            except Exception:
                log.exception("could not renew leases")
                if time.monotonic() - renewed > ttl * 0.8:
                    # Another process may claim them any moment: stop before it does.
                    lost = set(held)
                else:
                    continue
            else:
                renewed = time.monotonic()
            for task_id in lost:
                entry = self._running.get(task_id)
                if entry is not None:
                    log.warning("lease lost; stopping the task here", task_id=task_id)
                    self._letting_go.add(task_id)
                    entry[0].cancel()

    async def _take_over_orphans(self) -> None:
        """Claim tasks whose process stopped, and resume them, while there is room."""
        while not self._closing:
            room = min(self._admission.room, self.config.max_running_tasks - len(self._running))
            if room > 0:
                try:
                    claimed = await self._leases.claim_orphans(room)
                except Exception:
                    log.exception("could not look for orphaned tasks")
                    claimed = []
                for tenant, task_id in claimed:
                    try:
                        ticket = self._admission.admit(tenant)
                    except ResourceExhaustedError:
                        await self._release_claim(task_id)  # another replica may have room
                        continue
                    try:
                        await self._resume(tenant, task_id, ticket)
                    except Exception:
                        ticket.release()
                        log.exception("could not resume a task", task_id=task_id)
                        await self._release_claim(task_id)
            await asyncio.sleep(self._takeover_interval)

    async def _release_claim(self, task_id: str) -> None:
        try:
            await self._leases.release(task_id)
        except Exception:
            log.exception("could not release a claimed task", task_id=task_id)

    async def _resume(self, tenant: str, task_id: str, ticket: Ticket) -> None:
        """Run a claimed task from its last checkpoint (`ticket` is its place here)."""
        try:
            task = await self._store.get(tenant, task_id)
        except TaskNotFoundError:
            task = None
        if task is None or task.status.terminal:
            ticket.release()
            await self._forget(task_id)
            return
        raw = await self._checkpoints.load(tenant, task_id) if self._checkpoints else None
        loaded = serialization.loads(raw) if raw else None
        checkpoint = loaded if isinstance(loaded, RunCheckpoint) else None
        specs = {name: self._registry.spec(name) for name in task.tools}
        if checkpoint is None:
            if task.status is not TaskStatus.PENDING:
                ticket.release()
                await self._fail_orphan(task)
                return
            # Accepted but not yet recorded: nothing ran, so it starts from the beginning.
            call = CallContext(Principal(task.owner, task.tenant), task.trace_id)
            run = self._new_run(task, call, specs, 0)
            completed = 0
        else:
            if checkpoint.usage.total_tokens > task.usage.total_tokens:
                task.usage = checkpoint.usage
            remaining = (
                max(0.0, checkpoint.deadline_at - time.time())
                if checkpoint.deadline_at is not None
                else None
            )
            call = CallContext(checkpoint.principal, task.trace_id, remaining)
            run = self._new_run(task, call, specs, checkpoint.token_budget, resumed=checkpoint)
            completed = checkpoint.completed_steps
        log.info("resuming a task", task_id=task_id, completed_steps=completed)
        await run.emit(
            ev.TaskResumed(
                "the process running it stopped; resumed from its last checkpoint",
                self.replica,
                completed,
            )
        )
        self._launch(run, _gate(open_now=True), ticket)

    async def _fail_orphan(self, task: Task) -> None:
        message = (
            "the process running this task stopped and no checkpoint of it was found "
            "(replicas must share one database), so it cannot be resumed safely"
        )
        call = CallContext(Principal(task.owner, task.tenant), task.trace_id)
        run = self._new_run(task, call, {}, 0)
        with contextlib.suppress(TaskAlreadyTerminalError):  # it ended meanwhile
            await self._fail(run, "INTERNAL", message)
        await self._forget(task.task_id)

    async def _forget(self, task_id: str) -> None:
        """The task ended: drop its lease and checkpoint."""
        try:
            await self._leases.finish(task_id)
            if self._checkpoints is not None:
                await self._checkpoints.delete(task_id)
        except Exception:
            log.exception("could not drop a finished task's lease", task_id=task_id)

    async def _let_go(self, run: TaskRun) -> None:
        """Stop running a task without ending it: keep its progress, free its lease."""
        task_id = run.task.task_id
        self._letting_go.discard(task_id)
        try:
            await run.checkpoint()
            await self._leases.release(task_id)
        except Exception:
            log.exception("could not hand a task over", task_id=task_id)
        log.info("task handed over", task_id=task_id)

    # -- running -----------------------------------------------------------------

    def _deadline(self, run: TaskRun) -> float:
        """The task's time limit: the caller's (`timeout`), capped by the server's. Never
        the deadline of the call that started it, which bounds that call's stream only."""
        if run.deadline_at is not None:  # resumed: what was left of it
            return max(0.0, run.deadline_at - time.time())
        limit = self.config.task_timeout_seconds
        asked = run.task.time_limit_seconds
        if asked is not None and math.isfinite(asked) and asked > 0:
            limit = min(limit, asked)
        return limit

    async def _run(self, run: TaskRun, gate: asyncio.Future[None], ticket: Ticket) -> None:
        task_id = run.task.task_id
        # The task's own asyncio task: every log line of its run names it (and its caller).
        structlog.contextvars.bind_contextvars(
            task_id=task_id,
            trace_id=run.call.trace_id,
            principal=run.call.principal.id,
            tenant=run.call.principal.tenant,
        )
        try:
            if run.resumed is None:
                # Here rather than in start(): the caller's first event does not wait on SQL.
                await self._history.record(run.task)
                await run.checkpoint()
            async with ticket.slot():
                await self._run_in_slot(run, gate)
        except asyncio.CancelledError:  # cancelled while queued
            if task_id not in self._letting_go:
                await self._cancelled(run)
        except Exception as error:  # noqa: BLE001 - a store fault before it ran: it still ends
            await self._crashed(run, error)
        finally:
            if task_id in self._letting_go:
                await self._let_go(run)
            else:
                await self._forget(task_id)

    async def _run_in_slot(self, run: TaskRun, gate: asyncio.Future[None]) -> None:
        task = run.task
        try:
            await gate
            self._gates.pop(task.task_id, None)
            if task.status is TaskStatus.PENDING:
                task.status = TaskStatus.RUNNING
                await run.save()
                await self._history.record(task)  # ListTasks filters by status there
                await run.emit(
                    ev.StatusChanged(
                        TaskStatus.RUNNING, TaskStatus.PENDING, f"mode {task.mode.value}"
                    )
                )
            deadline = self._deadline(run)
            if run.deadline_at is None:
                run.deadline_at = time.time() + deadline
            outcome: Outcome | None
            try:
                async with asyncio.timeout(deadline):
                    outcome = await MODES[task.mode](run)
            except LimitReached as limit:
                reason, detail = limit.reason, limit.detail
                outcome = await self._partial(run, limit)
            except TimeoutError:
                reason, detail = (
                    StopReason.DEADLINE,
                    f"the task's time limit of {deadline:g} s passed",
                )
                outcome = Outcome(notes_answer(run, detail), reason, detail) if run.notes else None
            if outcome is None:  # stopped before any usable result: no made-up answer
                await self._fail(run, "TASK_LIMIT_REACHED", detail, reason)
            else:
                await self._complete(run, outcome)
        except asyncio.CancelledError:
            if task.task_id not in self._letting_go:
                await self._cancelled(run)
        except ModelError as error:
            await self._fail(run, "LLM_UNAVAILABLE", error.message)
        except PlanInvalidError as error:
            await self._fail(run, error.reason, error.message)
        except ModelOutputInvalid as error:
            await self._fail(run, "MODEL_OUTPUT_INVALID", error.message)
        except TaskAlreadyTerminalError:
            log.info("late write after the task ended was dropped", task_id=task.task_id)
        except Exception as error:  # noqa: BLE001 - every accepted task ends, whatever broke
            await self._crashed(run, error)

    async def _crashed(self, run: TaskRun, error: Exception) -> None:
        """End a task that met an unexpected error: FAILED, with the store's reason when a
        store could not be reached, else INTERNAL (with the trace id to quote)."""
        fault = as_store_error(error)
        if fault is not None:
            log.warning("task failed: a store is unavailable", error=str(error))
            await self._fail(run, fault.reason, fault.message)
            return
        log.exception("task crashed", trace_id=run.call.trace_id, exc_info=error)
        await self._fail(run, "INTERNAL", f"internal error; quote trace id {run.call.trace_id}")

    async def _partial(self, run: TaskRun, limit: LimitReached) -> Outcome | None:
        """The best answer the results gathered support, or None when there are none."""
        if not run.notes:
            return None
        try:
            async with asyncio.timeout(self.config.step_timeout_seconds):
                return await partial_outcome(run, limit)
        except (TimeoutError, ModelError):
            return Outcome(notes_answer(run, limit.detail), limit.reason, limit.detail)

    async def _end(self, run: TaskRun, status: TaskStatus, detail: str) -> None:
        """Write the terminal state (unless the task already ended), its event, and history.

        Never raises: a store that fails is retried for a while (the terminal
        event is what closes every reader's stream); if it stays out of reach,
        the task keeps its lease's fate (another replica takes it over).
        """
        task = run.task
        previous = task.status
        task.status = status
        try:
            await _persist(run.save)
        except TaskAlreadyTerminalError:
            return  # a late end after a cancel: dropped
        except Exception:
            log.exception("could not store a task's end", status=status.value)
            return
        try:
            await _persist(
                lambda: run.emit(ev.StatusChanged(status, previous, detail, task.stop_reason))
            )
        except TaskAlreadyTerminalError:
            return
        except Exception:
            log.exception("could not write a task's terminal event", status=status.value)
            return
        log.info(
            "task ended",
            status=status.value,
            mode=task.mode.value,
            stop_reason=task.stop_reason.value if task.stop_reason else "",
            prompt_tokens=task.usage.prompt_tokens,
            completion_tokens=task.usage.completion_tokens,
        )
        try:
            await _persist(lambda: self._history.record(task))  # last_sequence: the end's
        except Exception:
            log.exception("could not record task history", task_id=task.task_id)

    async def _complete(self, run: TaskRun, outcome: Outcome) -> None:
        task = run.task
        task.final_answer = scrub(outcome.answer)
        task.stop_reason = outcome.stop_reason
        task.stop_detail = scrub(outcome.detail)
        task.partial = outcome.stop_reason is not StopReason.FINAL_ANSWER
        await run.emit(
            ev.FinalAnswer(outcome.answer, outcome.stop_reason, outcome.detail, task.partial)
        )
        await self._end(run, TaskStatus.COMPLETED, outcome.detail)

    async def _fail(
        self, run: TaskRun, reason: str, message: str, stop: StopReason = StopReason.ERROR
    ) -> None:
        task = run.task
        message = scrub(message)
        task.failure = TaskFailure(reason, message)
        task.stop_reason = stop
        task.stop_detail = message
        if run.notes:
            task.final_answer = scrub(notes_answer(run, message))
        try:
            await _persist(lambda: run.emit(ev.ErrorOccurred(reason, message, True)))
        except TaskAlreadyTerminalError:
            return
        except Exception:
            log.exception("could not write a task's error event")
        await self._end(run, TaskStatus.FAILED, message)

    async def _cancelled(self, run: TaskRun) -> None:
        task = run.task
        reason = self._cancel_reasons.pop(task.task_id, "") or "cancelled"
        task.stop_reason = StopReason.CANCELLED
        task.stop_detail = reason
        if run.notes:
            task.final_answer = scrub(notes_answer(run, f"cancelled: {reason}"))
        await self._end(run, TaskStatus.CANCELLED, reason)


def _gate(*, open_now: bool) -> asyncio.Future[None]:
    """What a task waits on before it starts: opened at once, or by `Engine.begin`."""
    gate: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    if open_now:
        gate.set_result(None)
    return gate


PERSIST_DELAYS = (0.1, 0.5, 1.0, 2.0, 4.0, 8.0)
"""Waits between attempts to write a task's end while a store is out of reach (~15 s)."""


async def _persist(write: Callable[[], Awaitable[None]]) -> None:
    """Run a write that must happen (a task's end), retrying while a store is unavailable."""
    for delay in (*PERSIST_DELAYS, None):
        try:
            await write()
            return
        except Exception as error:
            if delay is None or as_store_error(error) is None:
                raise
            log.warning("a store is unavailable; retrying a task's end", delay=delay)
            await asyncio.sleep(delay)
