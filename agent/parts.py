"""What an engine works with besides its models, its tools and its limits: where tasks
live, how replicas share them, and the optional parts (agents, conversation memory,
encodings, teams). One typed bundle, so that `Engine` takes four things."""

from __future__ import annotations

from dataclasses import dataclass, field

from agent.conversations.engine_hooks import TaskMemory
from agent.definitions.catalog import Agents
from agent.guardrails.runs import DecisionSink
from agent.llm.window.encodings import Encodings
from agent.notices import NoNotices, Notices
from agent.recording.traces import Traces
from agent.scheduling.factory import ModelFactory
from agent.spending.calls import Metering
from agent.teams.delegation import TeamLimits
from stores.cancellations.base import CancelBus
from stores.cancellations.memory import InMemoryCancelBus
from stores.checkpoints.base import CheckpointStore
from stores.history.base import TaskHistory
from stores.history.memory import InMemoryTaskHistory
from stores.idempotency.base import IdempotencyStore
from stores.idempotency.memory import InMemoryIdempotencyStore
from stores.leases.base import Leases
from stores.leases.memory import InMemoryLeases
from stores.steers.base import SteerBus
from stores.steers.memory import InMemorySteerBus
from stores.tasks.base import TaskStore
from stores.waits.base import WaitStore
from stores.waits.memory import InMemoryWaitStore
from stores.wakes.base import WakeBus
from stores.wakes.memory import InMemoryWakeBus


@dataclass(frozen=True, slots=True)
class Replicas:
    """What the replicas of one deployment share to run tasks together; the defaults are
    one process's own."""

    leases: Leases = field(default_factory=InMemoryLeases)
    """Which replica runs which task."""
    cancel_bus: CancelBus = field(default_factory=InMemoryCancelBus)
    """Cancellations published to, and heard from, other replicas."""
    wake_bus: WakeBus = field(default_factory=InMemoryWakeBus)
    """Wakes published to, and heard from, other replicas."""
    steer_bus: SteerBus = field(default_factory=InMemorySteerBus)
    """Steers published to, and heard from, other replicas."""
    idempotency: IdempotencyStore = field(default_factory=InMemoryIdempotencyStore)
    """Requests' idempotency keys: a retry on any replica gets its first try's task."""
    key_ttl_seconds: float = 4200.0
    """How long an idempotency key is kept."""
    takeover_interval_seconds: float = 1.0
    """How often orphaned tasks are looked for."""


@dataclass(frozen=True, slots=True)
class EngineParts:
    """The engine's collaborators; every one but the task store has an in-process default
    (one replica, nothing kept past the process)."""

    store: TaskStore
    """Live tasks and their event logs."""
    history: TaskHistory = field(default_factory=InMemoryTaskHistory)
    """Tasks kept after they end (and the listing of a caller's tasks)."""
    replicas: Replicas = field(default_factory=Replicas)
    """Leases, cancellations, wakes, steers and idempotency keys shared with the other
    replicas."""
    checkpoints: CheckpointStore | None = None
    """Where a task's progress is kept for another replica to resume (after every step
    only when the leases are shared) and where a parked task is woken from (None: in this
    process)."""
    waits: WaitStore = field(default_factory=InMemoryWaitStore)
    """What parked tasks wait for (a person, children, a remote agent, a turn)."""
    agents: Agents | None = None
    """The agents tenants may run as (None: the default agent only)."""
    model_factory: ModelFactory | None = None
    """Models by name, for agents that name their own."""
    memory: TaskMemory | None = None
    """Conversation memory (None: tasks of conversations are not supported)."""
    encodings: Encodings | None = None
    """Token encodings for counting (None: estimates)."""
    teams: TeamLimits | None = None
    """How far delegation to sub-agents may go (None: the defaults)."""
    guardrail_audit: DecisionSink | None = None
    """Where guardrail decisions are audited (None: only in the tasks' events)."""
    meter: Metering | None = None
    """Prices, budgets and the usage ledger of model calls (None: calls are not metered)."""
    notices: Notices = field(default_factory=NoNotices)
    """Who is told of status changes and of the steps of waits for a person
    (`agent.notices`)."""
    traces: Traces | None = None
    """Where runs' durable traces are kept (`agent.recording`); None: no trace is kept."""
    missing_settings: tuple[str, ...] = ("AGENTD_LLM_MODEL",)
    """Without models: the settings that would turn the engine on (its error says them)."""
