"""The engine: agents, capacity and admission, and the limits of every task."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator

from records.waits import SERVER_ACTIONS, WaitAction, WaitKind
from server.settings.base import CommaList, Section


class EngineSettings(Section):
    agents_dir: Path | None = Field(
        None,
        description="a folder of agent definitions (YAML, one agent per file), read at start "
        "and again when they change; unset: only the default agent",
    )
    max_agents_per_tenant: int = Field(
        1000,
        ge=1,
        description="agents one tenant may have by RPC (not deleted); CreateAgent beyond it "
        "answers RESOURCE_EXHAUSTED",
    )
    agent_models: CommaList = Field(
        default_factory=list,
        description="the models agents may name (comma-separated); empty: any. An agent "
        "naming another is refused at CreateAgent/UpdateAgent and at file load",
    )
    promotion_gate: bool = Field(
        False,
        description="on: UpdateAgent adds a version without changing what the bare agent id "
        "serves (its promoted version, or its first while none is), and PromoteAgentVersion "
        "needs an evaluation run of that version that passed its gate; off: the bare id "
        "serves the latest version and promotion only records the pointer. id@version "
        "names any version either way (docs/agents.md)",
    )
    api_agent_credentials: CommaList = Field(
        default_factory=list,
        description="the credentials an agent made by CreateAgent/UpdateAgent may name in its "
        "remote_delegates, comma-separated: environment variables (token_env) and files "
        "(token_file), each as the agent names it; empty: none. Agent files may name any",
    )
    max_running_tasks: int = Field(100, ge=1, description="tasks one process runs at once")
    max_queued_tasks: int = Field(100, ge=0, description="tasks waiting for a slot before refusal")
    tenant_queue_share: float = Field(
        0.5,
        gt=0,
        le=1,
        description="share of the queue places one tenant may hold while every slot is busy; "
        "the rest stays free for other tenants (1: no limit)",
    )
    max_concurrent_llm_calls: int = Field(
        100, ge=1, description="model calls in flight per process; more wait their turn"
    )
    delta_flush_ms: float = Field(
        25.0,
        ge=0,
        description="text and reasoning deltas of a model reply arriving within this many "
        "milliseconds are sent as one event (0: one event per chunk)",
    )
    delta_max_chars: int = Field(
        1024, ge=1, description="a coalesced delta is sent once it holds this many characters"
    )
    max_concurrent_tool_calls: int = Field(5, ge=1, le=64, description="tool calls run at once")
    max_tool_calls_per_turn: int = Field(
        32, ge=1, le=256, description="tool calls run from one model reply; more are not run"
    )
    step_timeout_seconds: float = Field(30.0, gt=0, description="time limit of one step")
    task_timeout_seconds: float = Field(600.0, gt=0, description="time limit of one task")
    token_budget: int = Field(200_000, gt=0, description="default token budget per task")
    critic_policy: Literal["every_step", "every_n", "end", "off"] = Field(
        "end", description="when the critic reviews plan-and-execute results"
    )
    critic_every_n: int = Field(3, ge=1, description="steps between reviews with every_n")
    max_corrections: int = Field(
        3, ge=0, le=10, description="critic-requested corrections per task"
    )
    max_failed_tool_calls: int = Field(
        3,
        ge=0,
        le=100,
        description="tool calls failing one after another (refused, invalid arguments, tool "
        "errors, timeouts) that stop a run with the best answer so far (stop reason "
        "TOOL_FAILURES); agents may set their own; 0: never",
    )
    resume_window_seconds: float = Field(
        900.0,
        gt=0,
        description="how long a task whose tool call failed for a reason a person can fix "
        "waits (INPUT_REQUIRED) for ResumeTask before it ends FAILED (TOOL_RESUMABLE)",
    )
    max_wait_seconds: float = Field(
        86_400.0,
        gt=0,
        description="how long a task may wait in all, parked (for people, its children, "
        "remote agents, its turn in a conversation), unless its request sets less "
        "(wait_timeout); the wait does not count against its time limit",
    )
    wait_deadline_actions: str = Field(
        "approval=deny,question=deny,resume=fail,child=fail,remote=fail,turn=fail",
        description="what happens when a wait passes its deadline, by kind "
        "(approval, question, resume, child, remote, turn = deny, fail or cancel): deny "
        "refuses the call (recorded as a timeout, never as a person's decision) and the "
        "task goes on; fail ends it FAILED (WAIT_DEADLINE); cancel ends it CANCELLED",
    )
    step_policy: Literal["replan", "skip", "terminate"] = Field(
        "replan",
        description="what a failed plan step leads to: a new plan, going on without it (and "
        "the steps that depend on it), or the end of the run (STEP_FAILED); agents may set "
        "their own",
    )
    tool_progress_ms: float = Field(
        500.0,
        ge=0,
        description="a running tool call's progress reports go out as at most one "
        "tool_progress event per this many milliseconds, the latest winning (0: each one)",
    )

    @field_validator("wait_deadline_actions")
    @classmethod
    def _wait_actions(cls, value: str) -> str:
        parse_wait_actions(value)
        return value

    @property
    def wait_actions(self) -> dict[WaitKind, WaitAction]:
        """What each kind of wait does at its deadline (AGENTD_WAIT_DEADLINE_ACTIONS)."""
        return parse_wait_actions(self.wait_deadline_actions)


def parse_wait_actions(value: str) -> dict[WaitKind, WaitAction]:
    """`"approval=deny,child=fail"` as {APPROVAL: DENY, CHILD: FAIL}; kinds left out keep
    their default. ValueError names the part that is not kind=action."""
    actions: dict[WaitKind, WaitAction] = {}
    kinds = {k.value: k for k in WaitKind}
    choices = {a.value: a for a in SERVER_ACTIONS}  # approve, escalate: a rule's only
    for part in (p.strip() for p in value.split(",")):
        if not part:
            continue
        name, _, action = (s.strip().lower() for s in part.partition("="))
        if name not in kinds or action not in choices or kinds[name] in actions:
            raise ValueError(
                f"{part!r} is not kind=action (kinds: {', '.join(kinds)}; actions: "
                f"{', '.join(choices)}; each kind once)"
            )
        actions[kinds[name]] = choices[action]
    return actions
