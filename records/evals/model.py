"""Datasets, cases, graders and evaluation runs, as the engine and the stores keep them.

A dataset is a tenant's list of cases; a case is an input (or a recorded task to replay),
optional earlier turns of its conversation and the graders its answer must pass. An
evaluation run grades every case of a run as one agent version, keeps each case's result
as it finishes, then the aggregate, the comparison with a baseline run and the gate.
"""

from __future__ import annotations

import enum
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from records.tasks import TokenUsage

EVAL_RUN_LABEL = "agentd.eval_run"
"""The label every case's task carries: the evaluation run's id."""
ANSWER_CHARS = 4000
"""A case result keeps at most this much of its answer."""


def new_dataset_id() -> str:
    return "ds_" + secrets.token_hex(10)


def new_eval_run_id() -> str:
    return "evr_" + secrets.token_hex(10)


class GraderKind(enum.Enum):
    EXACT = "exact"
    CONTAINS = "contains"
    REGEX = "regex"
    JSON_SCHEMA = "json_schema"
    TRAJECTORY = "trajectory"
    JUDGE = "judge"
    CEILING = "ceiling"


class TrajectoryMatch(enum.Enum):
    IN_ORDER = "in_order"
    """The calls are exactly the list, in its order."""
    ANY_ORDER = "any_order"
    """The calls are exactly the list, in any order."""
    SUBSET = "subset"
    """Every tool of the list was called (others may be too)."""


@dataclass(frozen=True, slots=True)
class Grader:
    """One check of a case's answer; which fields count depends on `kind`."""

    kind: GraderKind
    name: str = ""
    """Unique within its case; empty: the kind's name (`label`)."""
    expected: str = ""
    """exact, contains: the text; regex: the RE2 pattern."""
    schema: Mapping[str, Any] | None = None
    """json_schema: the JSON Schema the answer (as JSON) must be valid against."""
    tools: tuple[str, ...] = ()
    """trajectory: the tool names."""
    match: TrajectoryMatch = TrajectoryMatch.IN_ORDER
    rubric: str = ""
    """judge: what the judge model grades the answer against."""
    model: str = ""
    """judge: a model name; empty: the server's critic model."""
    pass_score: float = 0.5
    """judge: the least score that passes."""
    max_tokens: int = 0
    """ceiling: 0 for no limit of that kind."""
    max_cost_micros: int = 0
    max_seconds: float = 0.0

    @property
    def label(self) -> str:
        return self.name or self.kind.value


@dataclass(frozen=True, slots=True)
class EvalTurn:
    """An earlier turn of the conversation a case's input continues."""

    role: str
    """user or assistant."""
    content: str


@dataclass(frozen=True, slots=True)
class EvalCase:
    case_id: str
    input: str = ""
    context: Mapping[str, Any] = field(default_factory=dict)
    turns: tuple[EvalTurn, ...] = ()
    graders: tuple[Grader, ...] = ()
    from_task_id: str = ""
    """A recorded task to replay instead of running `input` afresh."""


@dataclass(frozen=True, slots=True)
class Dataset:
    dataset_id: str
    tenant: str
    name: str
    description: str = ""
    cases: tuple[EvalCase, ...] = ()
    created_by: str = ""
    created_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class TaskSource:
    """Recorded tasks to draw cases from, each replayed (a ListTasks filter)."""

    agent: str = ""
    labels: Mapping[str, str] = field(default_factory=dict)
    limit: int = 50
    tools: str = "recorded"
    """How their tool calls replay: recorded or read_only."""
    graders: tuple[Grader, ...] = ()
    """Applied to every drawn case; none: the recorded answer, exactly."""


@dataclass(frozen=True, slots=True)
class GraderThreshold:
    grader: str
    """A grader's name, or a kind."""
    min_pass_rate: float


@dataclass(frozen=True, slots=True)
class Gate:
    min_pass_rate: float = 1.0
    thresholds: tuple[GraderThreshold, ...] = ()
    max_regression: float = 0.0
    allowed_regressed_cases: int = 0


@dataclass(frozen=True, slots=True)
class GraderResult:
    name: str
    kind: str
    passed: bool
    score: float
    reason: str = ""


@dataclass(frozen=True, slots=True)
class ReplayReport:
    """What a replayed case's task reports of its replay (`replays.proto` ReplayInfo)."""

    source_task_id: str
    tools: str = "recorded"
    diverged: bool = False
    divergence_kind: str = ""
    divergence_index: int = 0
    recorded: str = ""
    replayed: str = ""
    recorded_calls: int = 0
    not_run_calls: int = 0
    live_calls: int = 0


@dataclass(frozen=True, slots=True)
class CaseResult:
    case_id: str
    task_id: str = ""
    passed: bool = False
    graders: tuple[GraderResult, ...] = ()
    answer: str = ""
    """Cut to `ANSWER_CHARS`."""
    usage: TokenUsage = field(default_factory=TokenUsage)
    seconds: float = 0.0
    error: str = ""
    """Why the case's task did not complete (or could not start)."""
    replay: ReplayReport | None = None


@dataclass(frozen=True, slots=True)
class Aggregate:
    cases: int = 0
    passed: int = 0
    pass_rate: float = 0.0
    by_grader: Mapping[str, float] = field(default_factory=dict)
    """Pass rate by grader name and by kind."""
    total_tokens: int = 0
    cost_micros: int = 0
    p50_seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class Comparison:
    baseline_run_id: str
    baseline_pass_rate: float = 0.0
    pass_rate_delta: float = 0.0
    regressed: tuple[str, ...] = ()
    """Cases the baseline passed and this run failed."""
    improved: tuple[str, ...] = ()


class EvalRunState(enum.Enum):
    RUNNING = "running"
    FINISHED = "finished"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class EvalRun:
    eval_run_id: str
    tenant: str
    agent: str
    """`id@version` as run."""
    dataset_id: str = ""
    state: EvalRunState = EvalRunState.RUNNING
    results: tuple[CaseResult, ...] = ()
    """Those finished so far, in case order."""
    aggregate: Aggregate = field(default_factory=Aggregate)
    comparison: Comparison | None = None
    gate: Gate = field(default_factory=Gate)
    gate_passed: bool = False
    gate_failures: tuple[str, ...] = ()
    error: str = ""
    created_by: str = ""
    created_at: datetime | None = None
    finished_at: datetime | None = None
    labels: Mapping[str, str] = field(default_factory=dict)
    total_cases: int = 0
    baseline_run_id: str = ""
    owner: str = ""
    """The replica running it (while RUNNING)."""
    heartbeat_at: datetime | None = None
    """When its owner last said it was running it."""

    @property
    def agent_id(self) -> str:
        return self.agent.split("@", 1)[0]

    @property
    def version(self) -> int:
        _, _, version = self.agent.partition("@")
        return int(version) if version.isdigit() else 0


@dataclass(frozen=True, slots=True)
class EvalRequest:
    """What RunEval asks: cases (a stored dataset's, inline ones and drawn from recorded
    tasks: they add up), the agent to run them as, the baseline and the gate."""

    agent: str
    dataset_id: str = ""
    cases: tuple[EvalCase, ...] = ()
    source: TaskSource | None = None
    baseline_run_id: str = ""
    parallelism: int = 0
    """1 to 32; 0 means 4."""
    gate: Gate = field(default_factory=Gate)
    labels: Mapping[str, str] = field(default_factory=dict)
    idempotency_key: str = ""
