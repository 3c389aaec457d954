"""A replay as the task that runs it keeps it (`Task.replay`): the recorded task it
replays, how its tool calls are answered, and, once it ended, where it first did other
than the recording (`agent.tool_use.replaying`)."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field


class ReplayTools(enum.Enum):
    """How a replay treats tool calls."""

    RECORDED = "recorded"
    """A call matching one of the recording gets its recorded result; any other is not run."""
    READ_ONLY = "read_only"
    """As RECORDED, but a read-only tool no recording matches may run live."""


class DivergenceKind(enum.Enum):
    TOOL_CALL = "tool_call"
    """A call the recording does not have at that place, or with other arguments."""
    MISSING_CALL = "missing_call"
    """The recording made more calls."""
    ANSWER = "answer"
    """The calls matched; the final answers differ."""


@dataclass(frozen=True, slots=True)
class ReplayDivergence:
    """Where a replay first went its own way."""

    kind: DivergenceKind
    index: int
    """The position among the task's tool calls (0-based); 0 for an answer."""
    recorded: str
    """What the recording had there: `tool {redacted arguments JSON}`, or the answer."""
    replayed: str
    """What the replay did there, in the same form."""


@dataclass(frozen=True, slots=True)
class ReplayInfo:
    """A replay: given by the caller (`source_task_id`, `tools`), its report filled in
    when it ends (`ended`)."""

    source_task_id: str
    tools: ReplayTools = ReplayTools.RECORDED
    recorded_answer: str = ""
    """The recorded task's final answer, which the replay's is compared with."""
    ended: bool = False
    """The report below is the replay's (it ended)."""
    divergence: ReplayDivergence | None = None
    """None: it did as the recording did."""
    recorded_calls: int = 0
    """Tool calls answered from the recording."""
    not_run_calls: int = 0
    """Tool calls not run (no recording matched, or the tool writes)."""
    live_calls: int = 0
    """Tool calls run live (read-only tools, READ_ONLY)."""

    @property
    def diverged(self) -> bool:
        return self.divergence is not None


REPLAY_OF_LABEL = "agentd.replay_of"
"""The label a replay carries: the recorded task it replays."""


@dataclass(frozen=True, slots=True)
class ReplayRequest:
    """What a caller asks ReplayTask for."""

    task_id: str
    """The recorded task."""
    agent: str = ""
    """`id` or `id@version`; empty: the recorded task's agent at its current version."""
    tools: ReplayTools = ReplayTools.RECORDED
    labels: Mapping[str, str] = field(default_factory=dict)
    """The new task's labels (`REPLAY_OF_LABEL` is added)."""
    idempotency_key: str = ""
