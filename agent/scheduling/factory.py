"""Making a `TaskRun` for a task: the process's shared parts, shaped by the task's agent.

A task that runs as an agent gets the agent's instructions (rendered with the
task's context), its models for each role with its sampling, and its critic
policy and step time limit; every other task runs as the default agent: the
server's models and settings.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace

import structlog

from agent.definitions.toolset import offered
from agent.guardrails.runs import Guards
from agent.limits import EngineConfig
from agent.llm.base import Model
from agent.llm.providers import DEFAULT_PROVIDER, Provider, chain
from agent.llm.roles import ModelRoles, role_model
from agent.llm.window.encodings import Encodings
from agent.notices import NoNotices, Notices
from agent.recording.recorder import Recorder, RunRecording
from agent.recording.traces import Traces
from agent.running.artifacts import RunArtifacts
from agent.running.run import TaskRun
from agent.running.state import RunBounds, RunState
from agent.running.transcript import Transcript
from agent.running.urls import UrlBook
from agent.spending.calls import Metering
from agent.teams.delegation import Team
from agent.tool_use.calls import ToolCalls
from agent.tool_use.replaying import Replays
from core.errors import ToolNotFoundError
from core.identity import CallContext
from records.agents.definition import ROLES, AgentDefinition, render
from records.checkpoints import RunCheckpoint
from records.tasks import Task
from records.tools.model import ToolSpec
from stores.artifacts.base import ArtifactStore
from stores.checkpoints.base import CheckpointStore
from stores.tasks.base import TaskStore
from stores.traces.memory import InMemoryTraceStore
from stores.waits.base import WaitStore
from tools.registry import ToolRegistry

log = structlog.get_logger(__name__)

MAX_MODELS = 256
"""Agent models kept for reuse (they share one client, so dropping one costs nothing)."""

ModelFactory = Callable[[str, float | None, int | None], Model]
"""A model by name, with a temperature and a reply token limit (None: the server's)."""


@dataclass(frozen=True, slots=True)
class RunStores:
    """The stores every run of this process reads and writes besides its task's."""

    checkpoints: CheckpointStore | None
    waits: WaitStore
    artifacts: ArtifactStore | None = None
    """Its task tree's artifacts (the images its messages refer to); None: images are sent
    as notes."""


@dataclass
class RunFactory:
    """What every run of this process shares; makes a `TaskRun` for a task."""

    models: ModelRoles
    registry: ToolRegistry
    store: TaskStore
    config: EngineConfig
    stores: RunStores
    """The stores its runs keep their progress and waits in, and read artifacts from."""
    model_factory: ModelFactory | None = None
    """Makes the models agents name; None: agents use the server's models."""
    encodings: Encodings | None = None
    """Counts tokens per model; None: estimates."""
    team: Team | None = None
    """Starts child tasks for delegations (`agent.teams`); None: no delegation here."""
    guards: Guards | None = None
    """Makes each run's guardrails (`agent.guardrails.runs`); None: no run has any."""
    notices: Notices = field(default_factory=NoNotices)
    """Who is told of runs' status changes and waits' steps (`agent.notices`)."""
    nudge: Callable[[str, str, str], Awaitable[None]] | None = None
    """Nudges a parked task's wait (`agent.scheduling.parking.Parking.nudge`): given to
    child tasks' runs, for their parents."""
    meter: Metering | None = None
    """Prices, budgets and the usage ledger of every run's model calls (`agent.spending`)."""
    recorder: Recorder | None = None
    """Keeps every stored task's durable trace (`agent.recording`); None: none is kept."""
    _made: dict[tuple[str, float | None, int | None], Model] = field(default_factory=dict)

    async def admitted(self, run: TaskRun) -> None:
        """Return if the run's task may start within its budgets; BudgetExhaustedError if
        not (its first prompt taken as at least the shortest its model was sent)."""
        if self.meter is not None:
            model = run.models.for_role("executor")
            await self.meter.admit(run.task, model, len(run.task.goal) // 4)

    async def drained(self) -> None:
        """Wait for the usage rows and trace entries being written (at shutdown)."""
        if self.meter is not None:
            await self.meter.drain()
        if self.recorder is not None:
            await self.recorder.drain()

    def specs(self, names: Sequence[str]) -> dict[str, ToolSpec]:
        """The tools a task was given, by name: those the registry still has (a resumed
        task's toolset tool may have been removed, or its server not listed it yet)."""
        found: dict[str, ToolSpec] = {}
        for name in names:
            try:
                found[name] = self.registry.spec(name)
            except ToolNotFoundError:
                log.warning("a tool of a resumed task is gone", tool=name)
        return found

    def new(
        self,
        task: Task,
        call: CallContext,
        tools: dict[str, ToolSpec],
        budget: int,
        *,
        persist: bool = True,
        resumed: RunCheckpoint | None = None,
        ran_here: bool = True,
    ) -> TaskRun:
        if persist:  # a task outlives the call that started it: its deadline is not the task's
            call = replace(call, deadline_seconds=None)
        agent = task.agent
        config = self._config(agent)
        # As the agent is shown them (also when a task resumes); the Plan RPC's planner
        # sees the team's tools too (never runs them).
        tools = offered(agent, tools, task.delegates, team=self.team is not None)
        panels = agent.panels if agent is not None else ()
        models = self._models(agent)
        encodings = self.encodings or Encodings(None)
        state = RunState(
            persist=persist,
            checkpoints=self.stores.checkpoints,
            resumed=resumed,
            waits=self.stores.waits,
            nudge=self.nudge if task.parent_task_id else None,
            notices=self.notices,
            recording=self._recording(task, persist, resumed is None and ran_here),
        )
        run = TaskRun(
            task=task,
            call=call,
            models=models,
            config=config,
            bounds=RunBounds(
                budget or config.token_budget,
                deadline_at=resumed.deadline_at if resumed else None,
                waited=resumed.waited_seconds if resumed else 0.0,
            ),
            transcript=self._transcript(task, call, config, state),
            state=state,
            counter=encodings.for_model(models.for_role("executor").name),
            ran_here=ran_here,
            meter=self.meter,
        )
        artifacts = self.stores.artifacts
        run.artifacts = RunArtifacts(artifacts, task) if artifacts is not None else None
        journal = resumed.journal if resumed else {}
        failed = resumed.failed_in_a_row if resumed else 0
        replay = self._replays(config).for_run(task.replay, self.registry) if task.replay else None
        run.tools = ToolCalls(run, self.registry, tools, journal, failed, replay)
        if persist and self.team is not None and (task.delegates or panels):
            run.team = self.team.for_run(run)
        return run

    def _replays(self, config: EngineConfig) -> Replays:
        recorder = self.recorder  # none: a replay finds no recording, and runs nothing
        traces = recorder.traces if recorder is not None else Traces(InMemoryTraceStore())
        return Replays(traces, frozenset(config.tools.replay_read_only_tools))

    def _transcript(
        self,
        task: Task,
        call: CallContext,
        config: EngineConfig,
        state: RunState,
    ) -> Transcript:
        """The run's transcript: what it takes up of a checkpoint it resumes from."""
        agent, resumed = task.agent, state.resumed
        transcript = Transcript(
            task,
            self.store,
            call.trace_id,
            state,
            instructions=render(agent.instructions, task.context) if agent else "",
            guard=self.guards.for_task(task, call) if self.guards and state.persist else None,
            urls=UrlBook(
                config.url_placeholder_min_chars,
                resumed.url_token if resumed and resumed.url_token else None,
                resumed.urls if resumed else None,
            ),
        )
        transcript.writing(config.delta_flush_seconds, config.delta_max_chars)
        if resumed is not None:
            transcript.resume(resumed)
        return transcript

    def _recording(self, task: Task, persist: bool, fresh: bool) -> RunRecording | None:
        """What the run records of its trace (None: nothing, or not kept); `fresh`: the
        task's first run, no trace of it written before."""
        if self.recorder is None or not persist:
            return None
        return self.recorder.for_run(task, fresh)

    def _config(self, agent: AgentDefinition | None) -> EngineConfig:
        if agent is None:
            return self.config
        config = self.config
        failures = agent.max_failed_tool_calls
        return replace(
            config,
            step_timeout_seconds=agent.step_timeout_seconds or config.step_timeout_seconds,
            token_budget=agent.token_budget or config.token_budget,
            plan=replace(
                config.plan,
                critic_policy=agent.critic_policy or config.plan.critic_policy,
                step_policy=agent.step_policy or config.plan.step_policy,
            ),
            tools=config.tools
            if failures is None
            else replace(config.tools, max_failed_tool_calls=failures),
        )

    def _models(self, agent: AgentDefinition | None) -> ModelRoles:
        """The server's models, or the agent's: its model per role (else its default, else
        the server's model for the role), with its sampling."""
        if agent is not None and (agent.providers or agent.fallback):
            return self._provided(agent)
        if agent is None or self.model_factory is None:
            return self.models
        if not agent.models and agent.temperature is None and agent.max_tokens is None:
            return self.models
        chosen: dict[str, Model] = {}
        for role in ROLES:
            name = role_model(agent, role, self.models.for_role(role).name)  # type: ignore[arg-type]
            chosen[role] = self._model(name, agent.temperature, agent.max_tokens)
        default = agent.models.get("default") or self.models.default.name
        return ModelRoles(
            default=self._model(default, agent.temperature, agent.max_tokens),
            planner=chosen["planner"],
            executor=chosen["executor"],
            critic=chosen["critic"],
            synthesizer=chosen["synthesizer"],
            router=chosen["router"] if agent.models.get("router") else self.models.router,
            calls=self.models.calls,
        )

    def _provided(self, agent: AgentDefinition) -> ModelRoles:
        """The agent's models on its providers: for each role, its provider (else the
        server's own endpoint, `DEFAULT_PROVIDER`) then its fallback chain."""
        providers = dict(self.models.providers)
        if DEFAULT_PROVIDER not in providers and self.model_factory is not None:
            providers[DEFAULT_PROVIDER] = Provider(DEFAULT_PROVIDER, self.model_factory)

        def make(provider: Provider, name: str) -> Model:
            key = (f"{provider.name}\0{name}", agent.temperature, agent.max_tokens)
            made = self._made.get(key)
            if made is None:
                if len(self._made) >= MAX_MODELS:
                    self._made.clear()
                made = self._made[key] = provider.make(name, agent.temperature, agent.max_tokens)
            return made

        def for_role(role: str) -> Model:
            name = role_model(agent, role, self.models.for_role(role).name)  # type: ignore[arg-type]
            own = agent.providers.get(role) or agent.providers.get("default") or DEFAULT_PROVIDER
            links = [(own, name), *((p, m or name) for p, m in agent.fallback)]
            return chain(providers, links, make)

        roles = {role: for_role(role) for role in ROLES}
        return ModelRoles(
            default=for_role("default"),
            planner=roles["planner"],
            executor=roles["executor"],
            critic=roles["critic"],
            synthesizer=roles["synthesizer"],
            router=roles["router"] if agent.models.get("router") or self.models.router else None,
            calls=self.models.calls,
        )

    def model_by_name(self, name: str) -> Model:
        """A model by name (a panel's judge): the server's default without a factory."""
        return self._model(name, 0.0, None) if self.model_factory else self.models.default

    def _model(self, name: str, temperature: float | None, max_tokens: int | None) -> Model:
        key = (name, temperature, max_tokens)
        made = self._made.get(key)
        if made is None:
            assert self.model_factory is not None
            if len(self._made) >= MAX_MODELS:  # many distinct agents' settings: start over
                self._made.clear()
            made = self._made[key] = self.model_factory(name, temperature, max_tokens)
        return made
