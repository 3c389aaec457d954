"""Traces in this process's memory (one replica, nothing kept past the process)."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from records.tasks import utcnow
from records.traces.model import (
    ModelCallTrace,
    TracedMessage,
    TraceEntry,
    TraceHead,
    TraceOwner,
    TracePage,
)
from records.traces.size import entry_bytes, message_bytes


@dataclass(slots=True)
class _Trace:
    head: TraceHead
    written: datetime
    """When it was last written (a trace not written since the retention is swept)."""
    ids: list[str] = field(default_factory=list)
    """Entry ids, sorted."""
    entries: dict[str, TraceEntry] = field(default_factory=dict)
    messages: dict[str, TracedMessage] = field(default_factory=dict)


class InMemoryTraceStore:
    def __init__(self, clock: Callable[[], datetime] = utcnow) -> None:
        self._traces: dict[str, _Trace] = {}
        self._clock = clock

    async def write(
        self,
        owner: TraceOwner,
        entries: Sequence[TraceEntry],
        messages: Sequence[TracedMessage],
        *,
        cut: bool = False,
        fresh: bool = False,
    ) -> None:
        trace = self._traces.get(owner.task_id)
        if trace is None:
            trace = self._traces[owner.task_id] = _Trace(
                TraceHead(owner, 0, 0, False), self._clock()
            )
        added = 0
        for message in messages:
            if message.message_id not in trace.messages:
                trace.messages[message.message_id] = message
                added += message_bytes(message)
        for entry in entries:
            if entry.entry_id not in trace.entries:
                trace.entries[entry.entry_id] = entry
                bisect.insort(trace.ids, entry.entry_id)
                added += entry_bytes(entry)
        trace.written = self._clock()
        head = trace.head
        trace.head = replace(
            head, entries=len(trace.ids), bytes=head.bytes + added, cut=head.cut or cut
        )

    async def head(self, task_id: str) -> TraceHead | None:
        trace = self._traces.get(task_id)
        return None if trace is None else trace.head

    async def page(self, task_id: str, after: str, limit: int) -> TracePage:
        trace = self._traces.get(task_id)
        if trace is None:
            return TracePage((), (), "")
        start = bisect.bisect_right(trace.ids, after) if after else 0
        ids = trace.ids[start : start + limit]
        entries = tuple(trace.entries[i] for i in ids)
        seen = {m for i in trace.ids[:start] for m in _named(trace.entries[i])}
        wanted: list[str] = []
        for entry in entries:
            for name in _named(entry):
                if name not in seen:
                    seen.add(name)
                    wanted.append(name)
        messages = tuple(trace.messages[m] for m in wanted if m in trace.messages)
        more = start + limit < len(trace.ids)
        return TracePage(entries, messages, ids[-1] if more and ids else "")

    async def children(self, task_id: str) -> list[str]:
        found = [t.head.owner for t in self._traces.values()]
        return [
            o.task_id for o in sorted(found, key=lambda o: o.started) if o.parent_task_id == task_id
        ]

    async def sweep(self, before: datetime, limit: int) -> int:
        by_age = sorted(self._traces.items(), key=lambda kept: kept[1].written)
        old = [k for k, t in by_age if t.written < before][:limit]
        for task_id in old:
            del self._traces[task_id]
        return len(old)

    async def forget_user(self, tenant: str, user: str) -> int:
        theirs = [
            k
            for k, t in self._traces.items()
            if t.head.owner.tenant == tenant and t.head.owner.user == user
        ]
        for task_id in theirs:
            del self._traces[task_id]
        return len(theirs)


def _named(entry: TraceEntry) -> tuple[str, ...]:
    detail = entry.detail
    return detail.message_ids if isinstance(detail, ModelCallTrace) else ()
