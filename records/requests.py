"""What a caller asks the engine to do: a task request as every layer names it. Its
fingerprint is kept with an idempotency key (a retry must match it), so its digest's
keys are fixed; the checks a request passes on entry are `agent.requests`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from records.conversations.model import BusyPolicy
from records.execution import ExecutionMode
from records.parts import InputPart
from records.tasks import ParentLink
from records.tools.audit import digest
from records.traces.replays import ReplayInfo


@dataclass(frozen=True, slots=True)
class TaskRequest:
    """What a caller asks the engine to do."""

    goal: str
    """What the caller asks for, in its words (`task` in the API)."""
    tools: tuple[str, ...] = ()
    """Allow-list; empty means every tool the caller may use."""
    context: Mapping[str, Any] = field(default_factory=dict)
    max_iterations: int = 0
    """0 means the default."""
    mode: ExecutionMode = ExecutionMode.AUTO
    token_budget: int = 0
    """0 means the configured default."""
    spend_limit: int = 0
    """Most the task may spend on model calls in all (its children's included), in
    micro-units of the server's currency; 0: no limit of its own."""
    idempotency_key: str = ""
    """When set, a retry with the same key and request returns the same task."""
    timeout_seconds: float = 0.0
    """The task's own time limit; 0 means the server's."""
    wait_timeout_seconds: float = 0.0
    """How long the task may wait parked in all; 0 means the server's limit."""
    labels: Mapping[str, str] = field(default_factory=dict)
    """The caller's labels for the task."""
    plan: Mapping[str, Any] | None = None
    """A plan to run as given (the planner's JSON shape), validated by `given_plan`."""
    agent: str = ""
    """The agent to run as: `id` or `id@version`; empty for the default agent."""
    bypass_tool_cache: bool = False
    """The task's tool calls never answer from the cache of tool results."""
    conversation_id: str = ""
    """The conversation the task is the next turn of; empty for a task on its own."""
    busy_policy: BusyPolicy = BusyPolicy.REJECT
    """What happens while another task of the conversation runs or waits."""
    parent: ParentLink | None = None
    """Set when a task starts this one as its child (`agent.teams`); never by a caller."""
    replay: ReplayInfo | None = None
    """Set when the task replays a recorded one (ReplayTask): its tool calls are answered
    from the recording (`agent.tool_use.replaying`)."""
    parts: tuple[InputPart, ...] = ()
    """Files and images given with the input, in their order (`InputPart`)."""

    def fingerprint(self) -> str:
        # The goal's key stays "task" (the field's name before it was `goal`): a stored
        # idempotency record keeps the digest, so a retry across an upgrade must match it.
        if self.parent is not None:  # a child's share of budget and time vary on a re-attach
            return digest({"task": self.goal, "agent": self.agent, "parent": self.parent.task_id})
        fields: dict[str, Any] = {
            "task": self.goal,
            "tools": list(self.tools),
            "context": dict(self.context),
            "max_iterations": self.max_iterations,
            "mode": self.mode.value,
            "token_budget": self.token_budget,
            "timeout_seconds": self.timeout_seconds,
            "labels": dict(self.labels),
        }
        if self.plan is not None:  # absent otherwise: earlier keys keep their fingerprint
            fields["plan"] = dict(self.plan)
        if self.agent:
            fields["agent"] = self.agent
        if self.bypass_tool_cache:  # likewise
            fields["bypass_tool_cache"] = True
        if self.conversation_id:  # likewise
            fields["conversation"] = [self.conversation_id, self.busy_policy.value]
        if self.wait_timeout_seconds:  # likewise
            fields["wait_timeout_seconds"] = self.wait_timeout_seconds
        if self.replay is not None:  # likewise
            fields["replay"] = [self.replay.source_task_id, self.replay.tools.value]
        if self.spend_limit:  # likewise
            fields["spend_limit"] = self.spend_limit
        if self.parts:  # likewise; given content by its digest, a URL part by its URL
            fields["parts"] = [
                [p.name, p.media_type, "" if p.source_uri else p.sha256, p.source_uri]
                for p in self.parts
            ]
        return digest(fields)
