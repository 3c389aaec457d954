"""Building a `TaskRun` for unit tests: in-memory stores, the built-in tools and two tools
of the tests' own (a slow one that counts how many run at once, and one that may not be
repeated), made through `RunFactory.new` as the engine makes them."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from agent.limits import EngineConfig
from agent.llm.base import Model
from agent.llm.roles import ModelRoles
from agent.running.run import TaskRun
from agent.scheduling.factory import RunFactory, RunStores
from core.errors import TaskNotFoundError
from core.identity import CallContext, Principal
from records import events as ev
from records import serialization
from records.checkpoints import RunCheckpoint
from records.execution import ExecutionMode
from records.inbox.steps import ActionStep
from records.tasks import Task, TaskStatus, TokenUsage, new_task_id
from records.tools.approval_rules import ApprovalRule
from records.tools.model import JSONValue, PermissionLevel, RiskLevel, Tool, ToolOutput, ToolSpec
from records.waits import WaitKind
from stores.artifacts.memory import InMemoryArtifactStore
from stores.audit.memory import InMemoryAuditLog
from stores.checkpoints.memory import InMemoryCheckpointStore
from stores.tasks.memory import InMemoryTaskStore
from stores.waits.memory import InMemoryWaitStore
from tools.builtin import builtin_tools
from tools.permissions import GrantPolicy
from tools.registry import ToolRegistry

PRINCIPAL = Principal("alice", "acme", ("analyst",))

E = TypeVar("E", bound=ev.EventPayload)


class SlowTool(Tool):
    """Sleeps a while; counts the calls running at once (`peak`). Safe to repeat."""

    spec = ToolSpec(
        name="slow",
        description="Wait a moment, then echo n.",
        parameters={
            "type": "object",
            "properties": {"n": {"type": "integer"}},
            "required": ["n"],
        },
        category="test",
        permission=PermissionLevel.NONE,
        risk=RiskLevel.LOW,
        idempotent=True,
        timeout_seconds=5.0,
    )

    def __init__(self, seconds: float = 0.05) -> None:
        self.seconds = seconds
        self.running = 0
        self.peak = 0

    async def run(self, arguments: dict[str, JSONValue], context: CallContext) -> ToolOutput:
        self.running += 1
        self.peak = max(self.peak, self.running)
        try:
            await asyncio.sleep(self.seconds)
        finally:
            self.running -= 1
        return ToolOutput({"n": arguments["n"]}, f"slow {arguments['n']}")


class SendTool(Tool):
    """Sends a message (records it): a call that may not be repeated. `before_send`, when
    set, runs inside the call before anything is sent."""

    spec = ToolSpec(
        name="send_message",
        description="Send a message to someone.",
        parameters={
            "type": "object",
            "properties": {"to": {"type": "string"}},
            "required": ["to"],
        },
        category="test",
        permission=PermissionLevel.WRITE,
        risk=RiskLevel.MEDIUM,
        idempotent=False,
        timeout_seconds=5.0,
    )

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.before_send: Callable[[], Awaitable[None]] | None = None

    async def run(self, arguments: dict[str, JSONValue], context: CallContext) -> ToolOutput:
        if self.before_send is not None:
            await self.before_send()
        to = str(arguments["to"])
        self.sent.append(to)
        return ToolOutput({"sent_to": to}, f"sent to {to}")


class KeptNotices:
    """Keeps what it is told: the status changes and the steps of waits for a person."""

    def __init__(self) -> None:
        self.statuses: list[tuple[str, TaskStatus, TaskStatus | None]] = []
        self.steps: list[ActionStep] = []

    async def task_status(
        self, task: Task, status: TaskStatus, previous: TaskStatus | None
    ) -> None:
        self.statuses.append((task.task_id, status, previous))

    async def action(self, step: ActionStep) -> None:
        self.steps.append(step)


@dataclass
class Env:
    """What a run needs, in memory; `run(...)` makes one for a new task."""

    config: EngineConfig
    registry: ToolRegistry
    audit: InMemoryAuditLog
    store: InMemoryTaskStore
    checkpoints: InMemoryCheckpointStore | None
    waits: InMemoryWaitStore
    slow: SlowTool
    send: SendTool
    notices: KeptNotices = field(default_factory=KeptNotices)
    """What the runs told of their waits' steps."""
    artifacts: InMemoryArtifactStore = field(default_factory=InMemoryArtifactStore)
    """Where the artifact tools keep artifacts and runs read images from."""

    def factory(self, model: Model | ModelRoles) -> RunFactory:
        models = model if isinstance(model, ModelRoles) else ModelRoles(default=model)
        return RunFactory(
            models,
            self.registry,
            self.store,
            self.config,
            RunStores(self.checkpoints, self.waits, self.artifacts),
            notices=self.notices,
        )

    async def run(
        self,
        model: Model | ModelRoles,
        goal: str = "What is 6*7?",
        *,
        tools: Sequence[str] = ("calculator",),
        mode: ExecutionMode = ExecutionMode.FUNCTION_CALLING,
        max_iterations: int = 10,
        budget: int = 0,
        persist: bool = True,
        resumed: RunCheckpoint | None = None,
        task_id: str = "",
    ) -> TaskRun:
        """A run of a RUNNING task, stored unless `persist` is False; `task_id` names a task
        stored already (a run of another process, resumed)."""
        task = Task(
            task_id=task_id or new_task_id(),
            tenant=PRINCIPAL.tenant,
            owner=PRINCIPAL.id,
            goal=goal,
            mode=mode,
            tools=tuple(tools),
            max_iterations=max_iterations,
            status=TaskStatus.RUNNING,
        )
        if persist and not await self._stored(task.task_id):
            await self.store.create(task)
        factory = self.factory(model)
        return factory.new(
            task,
            CallContext(PRINCIPAL),
            factory.specs(tools),
            budget,
            persist=persist,
            resumed=resumed,
        )

    async def woken(self, run: TaskRun, model: Model | ModelRoles) -> TaskRun:
        """A new run of `run`'s task, picking it up where it parked (as a replica that
        woke it would: from the checkpoint it parked with)."""
        parked = serialization.loads(serialization.dumps(run.progress(time.time())))
        assert isinstance(parked, RunCheckpoint)
        task = await self.store.get(run.task.tenant, run.task.task_id)
        factory = self.factory(model)
        call = CallContext(PRINCIPAL)
        return factory.new(task, call, factory.specs(task.tools), 0, resumed=parked)

    async def answer(self, run: TaskRun, slot: str, kind: WaitKind, **answer: Any) -> None:
        """Leave an answer in the run's wait `slot` (as ApproveToolCall, ProvideInput or
        ResumeTask do)."""
        by = str(answer.pop("by", "carol"))
        now = datetime.now(UTC)
        await self.waits.answer(PRINCIPAL.tenant, run.task.task_id, slot, kind, answer, by, now)

    async def _stored(self, task_id: str) -> bool:
        try:
            await self.store.get(PRINCIPAL.tenant, task_id)
        except TaskNotFoundError:
            return False
        return True

    async def events(self, run: TaskRun) -> list[ev.EventPayload]:
        """Everything the run wrote to its task's log so far, in order."""
        if run.task.last_sequence == 0:
            return []
        payloads: list[ev.EventPayload] = []
        async for event in self.store.read_events(run.task.tenant, run.task.task_id):
            payloads.append(event.payload)
            if event.sequence >= run.task.last_sequence:
                break
        return payloads

    async def saved(self, run: TaskRun) -> RunCheckpoint | None:
        """The run's last checkpoint, read back as another process would."""
        if self.checkpoints is None:
            return None
        raw = await self.checkpoints.load(run.task.tenant, run.task.task_id)
        if raw is None:
            return None
        loaded = serialization.loads(raw)
        assert isinstance(loaded, RunCheckpoint)
        return loaded


def make_env(
    tmp_path: Path,
    config: EngineConfig | None = None,
    *,
    durable: bool = True,
    approval_tools: Sequence[str] = (),
    approval_rule: ApprovalRule | None = None,
) -> Env:
    """An environment; `durable` gives it a checkpoint store; `approval_tools` need a
    human's approval of each call, under `approval_rule` if given."""
    audit = InMemoryAuditLog()
    slow, send = SlowTool(), SendTool()
    policy = GrantPolicy(
        default=PermissionLevel.WRITE, approval_tools=approval_tools, approval_rule=approval_rule
    )
    artifacts = InMemoryArtifactStore()  # the artifact tools' and the runs' (images)
    tools = builtin_tools(tmp_path / "workspace", artifacts=artifacts)
    registry = ToolRegistry([*tools, slow, send], policy=policy, audit=audit)
    return Env(
        config=config or EngineConfig(),
        registry=registry,
        audit=audit,
        store=InMemoryTaskStore(),
        checkpoints=InMemoryCheckpointStore() if durable else None,
        waits=InMemoryWaitStore(),
        slow=slow,
        send=send,
        artifacts=artifacts,
    )


def of_type(events: Sequence[ev.EventPayload], kind: type[E]) -> list[E]:
    """The events of one type, in order."""
    return [e for e in events if isinstance(e, kind)]


def kinds(events: Sequence[ev.EventPayload]) -> list[str]:
    """The events' type names, in order, with runs of deltas shown once."""
    names: list[str] = []
    for event in events:
        name = event.type
        if name in ("text_delta", "reasoning_delta") and names and names[-1] == name:
            continue
        names.append(name)
    return names


def joined(events: Sequence[ev.EventPayload], kind: type[ev.TextDelta | ev.ReasoningDelta]) -> str:
    """The text of all deltas of one kind, joined."""
    return "".join(e.text for e in events if isinstance(e, kind))


def checkpoint(
    mode_state: Any = None,
    *,
    journal: dict[str, Any] | None = None,
    notes: tuple[str, ...] = (),
    completed_steps: int = 1,
) -> RunCheckpoint:
    """A checkpoint as an earlier process of the same task would have saved it, read back
    through the serialisation a checkpoint store uses."""
    saved = RunCheckpoint(
        principal=PRINCIPAL,
        token_budget=0,
        deadline_at=None,
        usage=TokenUsage(10, 5),
        completed_steps=completed_steps,
        notes=notes,
        journal=journal or {},
        mode_state=mode_state,
    )
    loaded = serialization.loads(serialization.dumps(saved))
    assert isinstance(loaded, RunCheckpoint)
    return loaded
