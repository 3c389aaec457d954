"""Per-agent memory inside a task tree: a sub-agent's earlier delegations under the same
parent are carried into its next one.

A second delegation to the same agent under the same parent starts with that agent's
own history: each earlier delegation's task, the tool calls it made and its answer (read
from its durable event log, so it holds after a takeover too), oldest first, bounded by
the agent's memory budget (`memory.budget_tokens`, about four characters a token; 4,000
tokens by default). An agent whose definition says `fresh_start: true` starts afresh
every time. The messages are kept on the child's task (`Task.carried`) when it is
accepted, so a child resumed elsewhere is sent the same.
"""

from __future__ import annotations

import json
from typing import Any

from agent.teams.base import ChildTasks
from records import events as ev
from records.tasks import Task

DEFAULT_BUDGET_TOKENS = 4_000
CHARS_PER_TOKEN = 4
MAX_TOOL_LINES = 20


async def carried(children: ChildTasks, parent: Task, agent_id: str) -> tuple[dict[str, Any], ...]:
    """The messages a new delegation to `agent_id` under `parent` starts with."""
    earlier = [c for c in parent.children if c.agent.partition("@")[0] == agent_id and not c.panel]
    if not earlier:
        return ()
    last = await children.find(parent.tenant, earlier[-1].task_id)
    if last.agent is None or last.agent.fresh_start or not last.status.terminal:
        return ()
    calls = await _tool_lines(children, last)
    answer = last.final_answer or f"(no answer: the task {last.status.value})"
    if calls:
        answer = "Tool calls made:\n" + "\n".join(calls) + "\n\nAnswer:\n" + answer
    messages = [
        *last.carried,
        {"role": "user", "content": last.goal},
        {"role": "assistant", "content": answer},
    ]
    budget = int(last.agent.memory.get("budget_tokens") or DEFAULT_BUDGET_TOKENS)
    return bounded(messages, budget * CHARS_PER_TOKEN)


async def _tool_lines(children: ChildTasks, task: Task) -> list[str]:
    """`tool(arguments) -> result` for each tool call of a finished task."""
    started: dict[str, ev.ToolCallStarted] = {}
    lines: list[str] = []
    async for event in children.events(task.tenant, task.task_id):
        payload = event.payload
        if isinstance(payload, ev.ToolCallStarted):
            started[payload.call_id] = payload
        elif isinstance(payload, ev.ToolCallFinished) and len(lines) < MAX_TOOL_LINES:
            begun = started.get(payload.call_id)
            arguments = json.dumps(begun.arguments, default=str) if begun else "{}"
            result = payload.text if payload.error is None else f"error: {payload.text}"
            lines.append(f"- {payload.tool_name}({arguments[:300]}) -> {result[:500]}")
    return lines


def bounded(messages: list[dict[str, Any]], chars: int) -> tuple[dict[str, Any], ...]:
    """The latest messages within `chars`, whole user/assistant pairs only."""
    kept: list[dict[str, Any]] = []
    size = 0
    for index in range(len(messages) - 2, -1, -2):
        pair = messages[index : index + 2]
        weight = sum(len(str(m.get("content", ""))) for m in pair)
        if kept and size + weight > chars:
            break
        kept[:0] = pair
        size += weight
    if size > chars and kept:  # one pair alone over the budget: its answer is cut
        last = kept[-1]
        kept[-1] = {**last, "content": str(last["content"])[: max(0, chars // 2)]}
    return tuple(kept)
