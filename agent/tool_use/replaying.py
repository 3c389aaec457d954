"""A replay's tool calls (ReplayTask): answered from the recorded task's trace, never run
when they write.

A replaying run carries a `Replaying` (`TaskRun.replay`), which `ToolCalls` consults for
every call at the one door, before the engine's own tools and the registry would run it:

- admission first: the call is admitted by the registry under the task's grants, as any
  call; a call the policy denies is refused (audited) as it would be live. A call that
  needs a person's approval is not waited for: nothing runs, and the recording carries
  the decision made then.
- a call whose tool and `arguments_key` (over its arguments before redaction) match a
  recorded call not yet used gets the recorded result (text, data, error): nothing runs.
  Delegations and panels get their recorded children's answers (no child starts),
  `ask_user` its recorded answer (nobody is asked).
- any other call gets an observation that it was not run, except that with READ_ONLY a
  read-only tool (a built-in of permission READ or lower, or one of
  AGENTD_REPLAY_READ_ONLY_TOOLS) runs live, through the usual path. `write_artifact`,
  `write_file`, `remember`, `http_request` other than GET/HEAD and the engine's own
  tools never run live, whatever the lists say.

Each call is noted in order (`calls`, with where its result came from: `sources`), and
`report` compares them with the recording's when the task ends
(`agent.tool_use.divergence`). Those notes live in the process only: a replay that parks
(a call of a live read-only tool waiting for approval) starts them again once woken.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from agent.recording.traces import Traces
from agent.tool_use.divergence import CallShape, divergence
from agent.tool_use.results import not_run, refused
from core.errors import AgentdError
from core.identity import CallContext
from records.tools.invocation import Invocation
from records.tools.model import PermissionLevel, ToolSpec
from records.tools.outcomes import ToolCallError, ToolCallResult, ToolErrorKind
from records.traces.model import ToolCallTrace, ToolSource, arguments_key
from records.traces.replays import ReplayInfo, ReplayTools
from stores.traces.base import TraceStore
from tools.admission import Verdict
from tools.builtin.artifacts import WRITE_ARTIFACT
from tools.catalog import ENGINE
from tools.registry import ToolRegistry

NEVER_LIVE = frozenset({WRITE_ARTIFACT, "write_file", "remember"})
"""Tools a replay never runs live, whatever AGENTD_REPLAY_READ_ONLY_TOOLS says."""
HTTP_REQUEST = "http_request"
SAFE_METHODS = frozenset({"GET", "HEAD"})
"""The only methods of `http_request` a replay may run live."""
PAGE = 500


@dataclass(frozen=True, slots=True)
class Replays:
    """What every replay of a process works from: the kept traces and the tools an
    operator declares read-only."""

    traces: Traces
    read_only: frozenset[str] = field(default_factory=frozenset)
    """AGENTD_REPLAY_READ_ONLY_TOOLS: tools READ_ONLY replays may run live."""

    def for_run(self, info: ReplayInfo | None, registry: ToolRegistry) -> Replaying | None:
        """A replaying run's replay (`registry`: where its calls are admitted)."""
        return None if info is None else Replaying(self, info, registry)


async def recorded_calls(store: TraceStore, task_id: str) -> list[tuple[str, ToolCallTrace]]:
    """A task's recorded tool calls with their steps, in the order they were kept."""
    calls: list[tuple[str, ToolCallTrace]] = []
    after = ""
    while True:
        page = await store.page(task_id, after, PAGE)
        calls.extend(
            (e.step_id, e.detail) for e in page.entries if isinstance(e.detail, ToolCallTrace)
        )
        if not page.next_after:
            return calls
        after = page.next_after


class Replaying:
    """The tool calls of one replaying run (see the module's docstring)."""

    __slots__ = (
        "_lock",
        "_recording",
        "_registry",
        "_replays",
        "_used",
        "calls",
        "info",
        "sources",
    )

    def __init__(self, replays: Replays, info: ReplayInfo, registry: ToolRegistry) -> None:
        self._replays = replays
        self.info = info
        self._registry = registry
        self._recording: list[tuple[str, ToolCallTrace]] | None = None
        self._used: set[int] = set()
        self._lock = asyncio.Lock()
        self.calls: list[CallShape] = []
        """The run's calls in the order they came to the door."""
        self.sources: dict[str, ToolSource] = {}
        """Where each call's result came from, by call id."""

    async def recording(self) -> list[tuple[str, ToolCallTrace]]:
        """The recorded task's tool calls (read once)."""
        async with self._lock:
            if self._recording is None:
                store = self._replays.traces.store
                self._recording = await recorded_calls(store, self.info.source_task_id)
            return self._recording

    def key(self, name: str, arguments: Mapping[str, Any]) -> str:
        return arguments_key(self._replays.traces.arguments_key, name, arguments)

    async def answer(
        self, invocation: Invocation, spec: ToolSpec | None, place: str, context: CallContext
    ) -> ToolCallResult | None:
        """The call's result from the recording, or that it was not run; None when it is
        to go the usual way: run live (a read-only tool, READ_ONLY), or refused (a tool
        the task was not given: nothing runs either). `place`: its journal key
        (`<step>/<position>` for a call of a model's reply; empty for a call on its own)."""
        name, call_id = invocation.name, invocation.call_id
        key = self.key(name, invocation.arguments)
        batch = place.rpartition("/")[0]
        self.calls.append(CallShape.of(name, key, invocation.redacted, batch))
        self.sources[call_id] = ToolSource.NOT_RUN
        if spec is None:
            return None
        registry = self._registry
        try:
            admission = await registry.admit(invocation, context, spec=spec)
            if admission.verdict is Verdict.DENIED:
                await registry.handed_on(admission)  # audited, and raises its refusal
        except AgentdError as refusal:
            return refused(invocation, refusal)
        trace = await self._take(name, key)
        if trace is not None:
            self.sources[call_id] = ToolSource.RECORDED
            return from_recording(invocation, trace)
        if self.may_run_live(spec, invocation):
            self.sources[call_id] = ToolSource.LIVE
            return None
        why = (
            f"{name} writes, and nothing that writes runs during a replay"
            if self._writes(spec, invocation)
            else f"the recording has no call of {name} with these arguments"
        )
        return not_run(invocation, ToolErrorKind.UNAVAILABLE, f"not run during a replay: {why}")

    async def _take(self, name: str, key: str) -> ToolCallTrace | None:
        """The first recorded call of `name` with `key` not used yet (now used)."""
        recording = await self.recording()
        for index, (_, trace) in enumerate(recording):
            if index not in self._used and trace.tool == name and trace.arguments_key == key:
                self._used.add(index)
                return trace
        return None

    def _writes(self, spec: ToolSpec, invocation: Invocation) -> bool:
        if spec.name in NEVER_LIVE or spec.source == ENGINE:
            return True
        if spec.name == HTTP_REQUEST:
            method = invocation.arguments.get("method") or "GET"
            return not (isinstance(method, str) and method.upper() in SAFE_METHODS)
        return False

    def may_run_live(self, spec: ToolSpec, invocation: Invocation) -> bool:
        """Whether a call no recording matches may run live: READ_ONLY, a read-only tool
        (a built-in of permission READ or lower, or one the operator lists), and not one
        that writes."""
        if self.info.tools is not ReplayTools.READ_ONLY or self._writes(spec, invocation):
            return False
        if spec.name in self._replays.read_only:
            return True
        return spec.source == "builtin" and spec.permission <= PermissionLevel.READ

    async def report(self, answer: str) -> ReplayInfo:
        """The replay's report, as it ended with `answer`."""
        recorded = [CallShape.recorded(t, step) for step, t in await self.recording()]
        sources = list(self.sources.values())
        return replace(
            self.info,
            ended=True,
            divergence=divergence(recorded, self.calls, self.info.recorded_answer, answer),
            recorded_calls=sources.count(ToolSource.RECORDED),
            not_run_calls=sources.count(ToolSource.NOT_RUN),
            live_calls=sources.count(ToolSource.LIVE),
        )


def from_recording(invocation: Invocation, trace: ToolCallTrace) -> ToolCallResult:
    """The recorded call's result, under the replay's call id (nothing ran)."""
    error = None
    if trace.error_kind or trace.error:
        try:
            kind = ToolErrorKind(trace.error_kind)
        except ValueError:
            kind = ToolErrorKind.FAILED
        if kind is ToolErrorKind.RESUMABLE:  # a replay waits for no one's ResumeTask
            kind = ToolErrorKind.FAILED
        error = ToolCallError(kind, trace.error or trace.result_text)
    data = None if error is not None else trace.result
    return ToolCallResult(invocation.call_id, invocation.name, data, trace.result_text, 0.0, error)
