"""The door's endpoints: each reads its request, calls `Responses`, `ChatCompletions` or
the agent catalog, and answers JSON or server-sent events; every error is answered once,
as OpenAI shapes errors (`server.openai.errors`), and named for the audit (`audited`)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from agent.definitions.catalog import Agents
from records.tasks import TaskStatus
from server.heartbeats import with_heartbeats
from server.http.door import OUTCOME, audited, call_of
from server.openai import bodies
from server.openai.chat import ChatCompletions, CompletionFailedError, models
from server.openai.errors import error_response, invalid, outcome_of
from server.openai.responses import Responses, Started, input_items
from server.openai.view import Json, ResponseView, response_id

Handler = Callable[[Request], Awaitable[Response]]
SSE_HEADERS = {"cache-control": "no-cache", "x-accel-buffering": "no"}


def _sse(data: Json | str, event: str = "") -> bytes:
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {text}\n\n".encode()


def answered(handler: Handler) -> Handler:
    """`handler`, its errors answered as OpenAI's and its outcome named for the audit."""

    async def answer(request: Request) -> Response:
        try:
            return await handler(request)
        except CompletionFailedError as failed:  # audited OK, as Execute of a task that fails
            body = {"message": failed.message, "type": "server_error", "param": None}
            return JSONResponse({"error": {**body, "code": failed.reason.lower()}}, 500)
        except Exception as exc:  # noqa: BLE001 - answered as OpenAI's error, once
            response, code = error_response(exc)
            earlier = getattr(request.state, OUTCOME, None)  # the task it started, if any
            audited(request, code, earlier[1] if earlier else "")
            return response

    return answer


PING = b": ping\n\n"
"""A quiet stream's sign of life: an SSE comment, which clients skip."""


async def _events(items: AsyncIterator[Json], heartbeat: float) -> AsyncIterator[bytes]:
    """Responses events as server-sent events, a comment when the task is quiet for
    `heartbeat` seconds (AGENTD_HEARTBEAT_SECONDS); a failure mid-stream as an `error`
    event."""
    last = 0
    try:
        async for item in with_heartbeats(items, heartbeat):
            if item is None:
                yield PING
                continue
            last = item["sequence_number"]
            yield _sse(item, item["type"])
    except Exception as exc:  # noqa: BLE001 - the stream's last event says it
        error, _ = outcome_of(exc)
        body = {"type": "error", "code": error.reason.lower(), "message": error.message}
        yield _sse({**body, "param": None, "sequence_number": last + 1}, "error")


def _stream(body: AsyncIterator[bytes], headers: dict[str, str] | None = None) -> Response:
    return StreamingResponse(
        body, media_type="text/event-stream", headers={**SSE_HEADERS, **(headers or {})}
    )


def _query_int(request: Request, name: str) -> int:
    value = request.query_params.get(name, "")
    if not value:
        return -1
    if not value.isdigit() or len(value) > 18:
        raise invalid(name, "must be a non-negative integer")
    return int(value)


def _query_flag(request: Request, name: str) -> bool:
    value = request.query_params.get(name, "false").lower()
    if value not in ("true", "false"):
        raise invalid(name, "must be true or false")
    return value == "true"


class Endpoints:
    """The routes' handlers."""

    def __init__(
        self, responses: Responses, chat: ChatCompletions, agents: Agents, heartbeat: float
    ) -> None:
        self._heartbeat = heartbeat
        self._responses = responses
        self._chat = chat
        self._agents = agents

    async def create_response(self, request: Request) -> Response:
        asked = bodies.responses_request(bodies.json_object(await request.body()))
        started = await self._responses.create(call_of(request), asked)
        audited(request, "OK", started.task.task_id)
        if asked.stream:
            view = ResponseView(started.task)
            items = self._responses.events(view, started)
            return _stream(_events(items, self._heartbeat))
        if asked.background:
            return JSONResponse(await self._responses.now(started.task))
        return JSONResponse(await self._responses.settled(started))

    async def get_response(self, request: Request) -> Response:
        stream = _query_flag(request, "stream")
        starting_after = _query_int(request, "starting_after")
        task = await self._responses.find(call_of(request), request.path_params["response_id"])
        audited(request, "OK", task.task_id)
        if not stream:
            return JSONResponse(await self._responses.now(task))
        waiting = task.status is TaskStatus.INPUT_REQUIRED
        started = Started(task, 0, task.last_sequence - 1 if waiting else task.last_sequence)
        items = self._responses.events(ResponseView(task), started, starting_after)
        return _stream(_events(items, self._heartbeat))

    async def cancel_response(self, request: Request) -> Response:
        call = call_of(request)
        task = await self._responses.find(call, request.path_params["response_id"])
        audited(request, "OK", task.task_id)
        return JSONResponse(await self._responses.cancel(call, task))

    async def list_input_items(self, request: Request) -> Response:
        task = await self._responses.find(call_of(request), request.path_params["response_id"])
        audited(request, "OK", task.task_id)
        return JSONResponse(input_items(task))

    async def create_chat_completion(self, request: Request) -> Response:
        data = bodies.json_object(await request.body())
        asked = bodies.chat_request(data)
        task = await self._chat.start(call_of(request), asked)
        audited(request, "OK", task.task_id)
        headers = {"x-agentd-response-id": response_id(task.task_id)}
        if not asked.stream:
            return JSONResponse(await self._chat.completion(task, data["model"]), headers=headers)
        chunks = self._chat.chunks(task, data["model"])
        return _stream(_chunks(chunks, self._heartbeat), headers)

    async def list_models(self, request: Request) -> Response:
        audited(request, "OK")
        return JSONResponse(await models(self._agents, call_of(request)))


async def _chunks(chunks: AsyncIterator[Json], heartbeat: float) -> AsyncIterator[bytes]:
    """Chat chunks as server-sent events (a comment when quiet), ended by `data: [DONE]`;
    a failure as an error."""
    try:
        async for chunk in with_heartbeats(chunks, heartbeat):
            yield PING if chunk is None else _sse(chunk)
    except CompletionFailedError as failed:
        body: dict[str, Any] = {"message": failed.message, "type": "server_error"}
        yield _sse({"error": {**body, "param": None, "code": failed.reason.lower()}})
    except Exception as exc:  # noqa: BLE001 - the stream's last chunk says it
        error, _ = outcome_of(exc)
        body = {"message": error.message, "type": "server_error", "param": None}
        yield _sse({"error": {**body, "code": error.reason.lower()}})
    yield _sse("[DONE]")
