"""The engine: what the server calls to run tasks, and to ask about and act on them.

It validates requests, takes an admission place, stores each new task and hands it
to `agent.scheduling.execution` to run; `agent.running.lifecycle` writes every status, and
`agent.scheduling.takeover` keeps leases and resumes tasks across replicas. Status events
are written by the lifecycle only.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import structlog

from agent.conversations.engine_hooks import TURN, TaskMemory
from agent.definitions.selection import narrow, resolve
from agent.definitions.toolset import delegates_of
from agent.guardrails.runs import Guards
from agent.inputs.keeping import InputParts
from agent.limits import EngineConfig, LimitReached
from agent.llm.roles import ModelRoles
from agent.modes import planner
from agent.notices import Notices
from agent.parts import EngineParts, Replicas
from agent.recording.recorder import Recorder
from agent.requests import validate_request
from agent.running import lifecycle
from agent.running.lifecycle import Endings
from agent.scheduling.admission import Admission, Ticket
from agent.scheduling.answers import Answers
from agent.scheduling.background import Background
from agent.scheduling.cancelling import Cancelling
from agent.scheduling.execution import Runner
from agent.scheduling.factory import RunFactory, RunStores
from agent.scheduling.intake import Chosen, StartKeys, choose, digested, kept, new_task, prepared
from agent.scheduling.listing import list_live
from agent.scheduling.parking import Parking
from agent.scheduling.steers import Steers
from agent.scheduling.takeover import Takeover
from agent.scheduling.waking import WakingPass
from agent.teams.delegation import Team, TeamLimits
from agent.teams.remote import RemoteAgents
from core.errors import (
    ConversationBusyError,
    LLMNotConfiguredError,
    PlanInvalidError,
    TaskAlreadyTerminalError,
    TaskNotFoundError,
)
from core.identity import CallContext
from records.conversations.model import BusyPolicy
from records.events import TaskEvent
from records.paging import Page, TimeCursor
from records.plan import Plan
from records.requests import TaskRequest
from records.tasks import Task, TaskQuery, new_task_id
from records.tools.approvals import ApprovalDecision
from stores.checkpoints.base import CheckpointStore
from stores.checkpoints.memory import InMemoryCheckpointStore
from stores.tasks.base import TaskStore
from tools.registry import ToolRegistry

log = structlog.get_logger(__name__)


class Engine:
    """Runs tasks. One per process; safe to use from many RPCs at once."""

    def __init__(
        self,
        models: ModelRoles | None,
        registry: ToolRegistry,
        parts: EngineParts,
        config: EngineConfig | None = None,
    ) -> None:
        self.config = config or EngineConfig()
        self.missing_settings = parts.missing_settings
        self._memory = memory = parts.memory
        self._agents = parts.agents
        self._models = models
        self._registry = registry
        self._store = store = parts.store
        self._history = parts.history
        self.traces = parts.traces
        """Where runs' traces are kept (None: none is), read by replays (`ReplayTask`)."""
        self.inputs: InputParts | None = None  # input parts' keeping (`keep_files`)
        self._idempotency = keys = parts.replicas.idempotency
        self._key_ttl = parts.replicas.key_ttl_seconds
        self._start_keys = StartKeys(keys, self._key_ttl)
        self._leases = parts.replicas.leases
        # Checkpoints after every step matter only when another process can resume the
        # task; a parked task's checkpoint always does (it is woken from it).
        checkpoints = parts.checkpoints if self._leases.shared else None
        parked = parts.checkpoints or InMemoryCheckpointStore()
        self._parking = Parking(self._leases, parts.waits, parked, parts.replicas.wake_bus)
        before = memory.finish if memory else None
        self._notices = notices = parts.notices
        self._endings = Endings(store, self._history, before, self._parking.ended, notices)
        self._admission = Admission(
            self.config.capacity.max_running_tasks,
            self.config.capacity.max_queued_tasks,
            tenant_queue_share=self.config.capacity.tenant_queue_share,
        )
        self._runner = Runner(
            self.config,
            self._endings,
            self._history,
            self._leases,
            checkpoints,
            self._parking,
            memory,
        )
        self.guards = Guards(self.config.guardrails, parts.guardrail_audit)  # runs', CallTool's
        self._runs = self._make_runs(models, registry, parts, checkpoints)
        if memory is not None:
            memory.turn_came = self._turn_came
        interval = parts.replicas.takeover_interval_seconds
        self._takeover = self._make_takeover(parked, interval)
        self._answers = Answers(store, parts.waits, self._parking, self.config.roles, notices)
        cancel = self.cancel_quietly
        self._waking = WakingPass(self._parking, store, cancel, interval, memory, notices)
        background = (self._runner, self._admission, self._parking, self._waking)
        replicas = parts.replicas
        self._jobs = Background(
            *background, self._takeover, replicas.cancel_bus, replicas.steer_bus
        )
        self._cancelling, self._steers = self._make_messengers(store, replicas)

    def _make_runs(
        self,
        models: ModelRoles | None,
        registry: ToolRegistry,
        parts: EngineParts,
        checkpoints: CheckpointStore | None,
    ) -> RunFactory | None:
        """What makes each task's run (None without models), its team, nudges and guards."""
        if models is None:
            return None
        shared = (registry, parts.store, self.config, RunStores(checkpoints, parts.waits))
        runs = RunFactory(models, *shared, parts.model_factory, parts.encodings, meter=parts.meter)
        runs.recorder = Recorder(parts.traces) if parts.traces is not None else None
        runs.team = Team(self, parts.teams or TeamLimits(), runs.model_by_name)
        runs.nudge = self._parking.nudge
        runs.notices = parts.notices
        runs.guards = self.guards
        return runs

    def _make_messengers(self, store: TaskStore, replicas: Replicas) -> tuple[Cancelling, Steers]:
        """What tells a running task something, on whichever replica: cancels, steers."""
        ending = (self._history, self._runner, self._endings, self._parking)
        cancelling = Cancelling(store, *ending, replicas.cancel_bus, self.cancel_quietly)
        steers = Steers(
            store,
            self.find,
            self._idempotency,
            replicas.steer_bus,
            self.config.roles,
            self._runner.steered,
            self._key_ttl,
        )
        return cancelling, steers

    def _make_takeover(
        self, checkpoints: CheckpointStore, interval_seconds: float
    ) -> Takeover | None:
        if self._runs is None:
            return None
        parts = (self._runner, self._runs, self._admission, self._leases, checkpoints)
        takeover = Takeover(*parts, self._endings, interval_seconds, self._memory)
        self._parking.resume = takeover.take
        return takeover

    async def _turn_came(self, tenant: str, task_id: str) -> None:
        await self._parking.nudge(tenant, task_id, TURN)

    @property
    def configured(self) -> bool:
        return self._models is not None

    @property
    def notices(self) -> Notices:
        """Who is told of status changes and of the steps of waits (`EngineParts.notices`)."""
        return self._notices

    def running_count(self) -> int:
        """Tasks in this process now (running or waiting for a slot)."""
        return len(self._runner.running)

    @property
    def replica(self) -> str:
        return self._leases.replica

    def listen_for_cancellations(self) -> None:
        """Start following cancellations published by other replicas."""
        self._jobs.listen_for_cancellations()

    async def recover(self) -> None:
        """At start-up: with live state in this process, the tasks its previous process
        left parked are gone with it; they end FAILED (SERVER_RESTARTED). With shared
        live state (Redis) they wait on, and are woken on any replica."""
        if not self._leases.shared:
            await self._parking.end_lost(self._history)

    def supervise(self) -> None:
        """Start waits', wakes', leases' and takeover's work (`agent.scheduling.background`)."""
        self._jobs.supervise(self.config.capacity.max_running_tasks)

    def call_remote_agents(self, remote: RemoteAgents) -> None:
        """Run child tasks on remote A2A agents with `remote` (`agent.teams.remote`)."""
        self._runner.remote = remote
        self._waking.remote = remote

    def keep_files(self, inputs: InputParts) -> None:
        """Take input parts, kept by `inputs`; runs read artifacts from its store."""
        self.inputs = inputs
        if (runs := self._runs) is not None:
            runs.stores = RunStores(runs.stores.checkpoints, runs.stores.waits, inputs.store)

    def _require_runs(self) -> RunFactory:
        if self._runs is None:
            raise LLMNotConfiguredError(self.missing_settings)
        return self._runs

    async def plan(
        self,
        goal: str,
        tools: Sequence[str],
        context: Mapping[str, Any],
        call: CallContext,
        agent_reference: str = "",
    ) -> Plan:
        """Run the planner only (as the agent named, if any). Raises PlanInvalidError when
        no valid plan comes."""
        runs = self._require_runs()
        agent = await resolve(self._agents, call.principal.tenant, agent_reference)
        specs, _ = validate_request(self._registry, goal, tools, context, call)
        specs = narrow(agent, tuple(tools), specs)
        task = Task(
            task_id="plan",
            tenant=call.principal.tenant,
            owner=call.principal.id,
            goal=goal,
            context=dict(context),
            agent=agent,
            delegates=await delegates_of(self._agents, call.principal.tenant, agent),
        )
        run = runs.new(task, call, specs, 0, persist=False)
        await runs.admitted(run)
        try:
            return await planner.make_plan(run)
        except LimitReached as limit:
            raise PlanInvalidError([limit.detail]) from None

    async def start(self, request: TaskRequest, call: CallContext) -> Task:
        """Store a new task, start running it, and return it (its first event is written)."""
        self._require_runs()
        # A place in this process first, before any other work and any store: a full
        # server answers at once, as cheaply as it can.
        ticket = self._admission.admit(call.principal.tenant)
        try:
            # A retry's key first: it gets its task back even if, say, its agent is gone
            # or a URL part of it no longer answers (parts go by their digest or URL).
            request, task_id = digested(request), new_task_id()
            earlier = await self._start_keys.earlier(request, call, task_id)
            if earlier is not None:
                found = await self.find(call.principal.tenant, earlier)
                ticket.release()  # the earlier task holds its own place
                return found
            try:
                request = await prepared(self.inputs, request)  # parts fetched and checked
                conversations = self._memory.conversations if self._memory else None
                chosen = await choose(request, call, self._registry, self._agents, conversations)
            except BaseException:
                await self._start_keys.release(request, call)  # refused: a retry may succeed
                raise
            return await self._accept(chosen, call, ticket, task_id)
        except BaseException:
            ticket.release()
            raise

    async def start_or_steer(self, request: TaskRequest, call: CallContext) -> tuple[Task, int]:
        """`start`, but for a request under the STEER busy policy a busy conversation's
        task is steered instead (`agent.scheduling.steers`); the task, and the position in
        its log to follow it from."""
        memory = self._memory
        steering = request.busy_policy is BusyPolicy.STEER and request.conversation_id
        if not steering or memory is None:
            return await self.start(request, call), 0
        return await self._steers.into_conversation(request, call, memory, self.start)

    async def _accept(
        self, chosen: Chosen, call: CallContext, ticket: Ticket, task_id: str
    ) -> Task:
        request = chosen.request
        routed = self._models is not None and self._models.router is not None
        task = new_task(chosen, call, task_id, self.config.tool_calling, routed)
        run = self._require_runs().new(task, call, chosen.specs, request.token_budget)
        await self._require_runs().admitted(run)  # BudgetExhaustedError: budgets spent
        memory = self._memory if task.conversation_id else None
        try:  # a task not stored after all never stays in its conversation's line
            if memory is not None:
                await self._take_turn(memory, task, request, call)
            await self._leases.acquire(task.tenant, task.task_id)
            await kept(self.inputs, task, request)  # artifacts before the task is queued
            await lifecycle.accepted(self._store, run)
        except BaseException:
            if memory is not None:
                await asyncio.shield(memory.release(task))
            raise
        self._runner.launch(run, ticket)
        return task

    async def _take_turn(
        self, memory: TaskMemory, task: Task, request: TaskRequest, call: CallContext
    ) -> None:
        """Take the task's conversation or act on the request's busy policy; a refused
        task leaves no idempotency key behind (a retry may succeed later)."""
        try:
            await memory.admit(task, request.busy_policy, self.cancel_quietly)
        except ConversationBusyError:
            await self._start_keys.release(request, call)
            raise

    async def approve(
        self, call: CallContext, task_id: str, call_id: str, decision: ApprovalDecision
    ) -> Task:
        """ApproveToolCall (`agent.scheduling.answers`)."""
        return await self._answers.approve(call, task_id, call_id, decision)

    async def provide_input(
        self, call: CallContext, task_id: str, request_id: str, text: str
    ) -> Task:
        """ProvideInput (`agent.scheduling.answers`)."""
        return await self._answers.provide_input(call, task_id, request_id, text)

    async def steer(
        self, call: CallContext, task_id: str, message: str, idempotency_key: str = ""
    ) -> tuple[Task, TaskEvent]:
        """SteerTask (`agent.scheduling.steers`): the task and the steer's event."""
        return await self._steers.steer(call, task_id, message, idempotency_key)

    async def resume_task(self, call: CallContext, task_id: str, comment: str = "") -> Task:
        """ResumeTask (`agent.scheduling.answers`)."""
        return await self._answers.resume(
            call, await self.find(call.principal.tenant, task_id), comment
        )

    async def cancel(self, tenant: str, task_id: str, reason: str) -> Task:
        """CancelTask (`agent.scheduling.cancelling`)."""
        return await self._cancelling.cancel(tenant, task_id, reason)

    async def events(self, tenant: str, task_id: str) -> AsyncIterator[TaskEvent]:
        """A task's events from the first to its end, wherever it runs (for a parent that
        waits for its child); nothing once the live store has let it go."""
        with contextlib.suppress(TaskNotFoundError):
            async for event in self._store.read_events(tenant, task_id):
                yield event

    async def find(self, tenant: str, task_id: str) -> Task:
        """A task of `tenant`: live, or from the history once the live store let it go.
        TaskNotFoundError for an unknown id and for another tenant's task alike."""
        try:
            return await self._store.get(tenant, task_id)
        except TaskNotFoundError:
            return await self._history.get(tenant, task_id)

    async def list_tasks(self, query: TaskQuery) -> Page[Task, TimeCursor]:
        """A page of the caller's tasks; unfinished ones show (and filter by) their live
        state (`agent.scheduling.listing`)."""
        return await list_live(self._history, self._store, query)

    async def cancel_quietly(self, tenant: str, task_id: str, reason: str) -> None:
        """Cancel unless the task already ended (for callers that are going away)."""
        with contextlib.suppress(TaskAlreadyTerminalError, TaskNotFoundError):
            await asyncio.shield(self.cancel(tenant, task_id, reason))

    async def drain(self, seconds: float) -> None:
        """Let running and queued tasks finish for up to `seconds` (new ones are refused)."""
        await self._runner.drain(seconds)

    async def close(self, reason: str = "the server shut down") -> None:
        """Stop whatever still runs (after the server's grace period).

        With shared leases, each such task keeps its checkpoint and its lease is
        released, so another process resumes it at once; otherwise it ends CANCELLED.
        """
        await self._jobs.stop()
        await self._runner.stop_all(reason)
        if self._runs is not None:
            await self._runs.drained()
        if self._models is not None:
            await self._models.close()
