"""`/v1/chat/completions` and `/v1/models`: for clients that know nothing but Chat
Completions. A completion is an agentd task on its own (no conversation): the last user
message is the task, earlier messages its context (`server.openai.bodies`). agentd runs
its tools itself, so its tool calls never show in `tool_calls`; the content is the
agent's text. A task that waits for a person ends the completion (finish_reason "stop",
the content saying what it waits for); the wait is answered through Responses, the task
being response `resp_<task id>` (docs/openai.md)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from agent.definitions.catalog import Agents
from agent.engine import Engine
from core.identity import CallContext
from records import events as ev
from records.paging import KeyCursor
from records.requests import TaskRequest
from records.tasks import Task, TaskStatus
from server.openai.bodies import ChatRequest
from server.openai.view import Json, ends, response_id, usage_of
from server.services.tasks import TaskService

MAX_MODELS = 1_000
"""Agents `/v1/models` lists at most."""
MODELS_PAGE = 200


class ChatCompletions:
    """Chat Completions over the engine and its tasks."""

    def __init__(self, engine: Engine, tasks: TaskService) -> None:
        self._engine = engine
        self._tasks = tasks

    async def start(self, call: CallContext, asked: ChatRequest) -> Task:
        turn = asked.turn
        request = TaskRequest(
            goal=turn.goal, context=turn.context, agent=asked.agent, parts=turn.parts
        )
        return await self._engine.start(request, call)

    async def _log(self, task: Task) -> AsyncIterator[ev.TaskEvent]:
        async for event in self._tasks.live(task.tenant, task.task_id, 0):
            yield event
            if ends(event, 0):
                return

    async def completion(self, task: Task, model: str) -> Json:
        """The completion once the task ends or waits."""
        seen = [event async for event in self._log(task)]  # up to its end, or its wait
        task = await self._engine.find(task.tenant, task.task_id)
        if task.status is TaskStatus.FAILED:
            failure = task.failure
            raise CompletionFailedError(
                failure.reason if failure else "", task.stop_detail or "failed"
            )
        message = {"role": "assistant", "content": _content(task, seen)}
        choice = {"index": 0, "message": message, "finish_reason": _finish(task)}
        usage = usage_of(task.usage)
        return {
            **_head(task, model, "chat.completion"),
            "choices": [choice],
            "usage": {
                "prompt_tokens": usage["input_tokens"],
                "completion_tokens": usage["output_tokens"],
                "total_tokens": usage["total_tokens"],
            },
        }

    async def chunks(self, task: Task, model: str) -> AsyncIterator[Json]:
        """The completion as `chat.completion.chunk`s: the text as the agent streams it
        (its final answer at once when it streamed none), then the finish."""
        head = _head(task, model, "chat.completion.chunk")

        def chunk(delta: Json, finish: str | None = None) -> Json:
            return {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

        yield chunk({"role": "assistant", "content": ""})
        streamed = partial = False
        last: ev.TaskEvent | None = None
        async for event in self._log(task):
            last = event
            payload = event.payload
            if isinstance(payload, ev.TextDelta) and payload.text:
                streamed = True
                yield chunk({"content": payload.text})
            elif isinstance(payload, ev.FinalAnswer):
                partial = payload.partial
                if not streamed and payload.text:
                    yield chunk({"content": payload.text})
            elif isinstance(payload, ev.ApprovalRequested | ev.InputRequested):
                yield chunk({"content": _waiting(task.task_id, payload)})
        ended = last.payload if last is not None else None
        if isinstance(ended, ev.StatusChanged) and ended.current is TaskStatus.FAILED:
            found = await self._engine.find(task.tenant, task.task_id)
            reason = found.failure.reason if found.failure else ""
            raise CompletionFailedError(reason, ended.detail or "the task failed")
        yield chunk({}, "length" if partial else "stop")


class CompletionFailedError(Exception):
    """A completion's task failed: the call's error (a stream's last event)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


def _head(task: Task, model: str, kind: str) -> Json:
    return {
        "id": f"chatcmpl-{task.task_id}",
        "object": kind,
        "created": int(task.created_at.timestamp()),
        "model": model,
    }


def _finish(task: Task) -> str:
    return "length" if task.partial else "stop"


def _waiting(task_id: str, payload: ev.ApprovalRequested | ev.InputRequested) -> str:
    what = (
        f"approval of a call of {payload.tool_name}"
        if isinstance(payload, ev.ApprovalRequested)
        else f"an answer: {payload.question}"
    )
    return f"[agentd: the task waits for {what}; answer it as response {response_id(task_id)}]"


def _content(task: Task, log: list[ev.TaskEvent]) -> str:
    if task.status is TaskStatus.INPUT_REQUIRED:
        asked = [
            e.payload
            for e in log
            if isinstance(e.payload, ev.ApprovalRequested | ev.InputRequested)
        ]
        if asked:
            return _waiting(task.task_id, asked[-1])
    return task.final_answer


async def models(agents: Agents, call: CallContext) -> Json:
    """`GET /v1/models`: the agents the caller's tenant may use, as `agent:<id>`."""
    data: list[Json] = []
    after: KeyCursor | None = None
    while len(data) < MAX_MODELS:
        page = await agents.list(call.principal.tenant, after, size=MODELS_PAGE)
        data += [_model(v.agent.agent_id, v.created_at.timestamp()) for v in page.items]
        if page.next is None:
            break
        after = page.next
    return {"object": "list", "data": data[:MAX_MODELS]}


def _model(agent_id: str, created: float) -> dict[str, Any]:
    return {
        "id": f"agent:{agent_id}",
        "object": "model",
        "created": int(created),
        "owned_by": "agentd",
    }
