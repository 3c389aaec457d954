"""The OpenAI-compatible front door (`openai` in AGENTD_HTTP_DOORS): Responses, Chat
Completions and the models list under `/v1`, over the engine, its tasks, the
conversations and the agent catalog (docs/openai.md). The address's guard authenticates,
limits and audits each call before it reaches a route (`server.http.door`)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager

from starlette.requests import Request
from starlette.routing import BaseRoute, Route

from agent.conversations.service import Conversations
from agent.definitions.catalog import Agents
from agent.engine import Engine
from server.openai.chat import ChatCompletions
from server.openai.http import Endpoints, answered
from server.openai.responses import Responses
from server.services.tasks import TaskService

SERVICE = "openai.v1"
STARTING = frozenset({"CreateResponse", "CreateChatCompletion"})
"""The calls that start a task (counted under Execute's rate limits)."""


def _creates_nothing(body: bytes) -> bool:
    """A create call whose body answers a waiting response (its input items are
    `mcp_approval_response`s) starts no task."""
    try:
        data = json.loads(body)
    except ValueError:
        return False
    items = data.get("input") if isinstance(data, dict) else None
    return (
        isinstance(items, list)
        and bool(items)
        and all(isinstance(i, dict) and i.get("type") == "mcp_approval_response" for i in items)
    )


class OpenAIDoor:
    """The Door (`server.http.door.Door`) of OpenAI's APIs."""

    name = "openai"
    service = SERVICE

    def __init__(
        self,
        engine: Engine,
        tasks: TaskService,
        conversations: Conversations,
        agents: Agents,
        *,
        heartbeat_seconds: float = 15.0,
    ) -> None:
        responses = Responses(engine, tasks, conversations)
        chat = ChatCompletions(engine, tasks)
        self._endpoints = Endpoints(responses, chat, agents, heartbeat_seconds)

    def routes(self) -> Sequence[BaseRoute]:
        e = self._endpoints
        one = "/v1/responses/{response_id}"
        return [
            Route("/v1/responses", answered(e.create_response), methods=["POST"]),
            Route(one, answered(e.get_response), methods=["GET"]),
            Route(f"{one}/cancel", answered(e.cancel_response), methods=["POST"]),
            Route(f"{one}/input_items", answered(e.list_input_items), methods=["GET"]),
            Route("/v1/chat/completions", answered(e.create_chat_completion), methods=["POST"]),
            Route("/v1/models", answered(e.list_models), methods=["GET"]),
        ]

    def method_of(self, request: Request, body: bytes) -> str:
        path, verb = request.url.path.rstrip("/"), request.method
        if path == "/v1/responses" and verb == "POST":
            return "ApproveToolCall" if _creates_nothing(body) else "CreateResponse"
        if path == "/v1/chat/completions" and verb == "POST":
            return "CreateChatCompletion"
        if path == "/v1/models" and verb == "GET":
            return "ListModels"
        if path.startswith("/v1/responses/"):
            if path.endswith("/cancel") and verb == "POST":
                return "CancelResponse"
            if path.endswith("/input_items") and verb == "GET":
                return "ListInputItems"
            if verb == "GET":
                return "GetResponse"
        return "invalid"

    def running(self) -> AbstractAsyncContextManager[None]:
        return _nothing()

    def starts_task(self, method: str) -> bool:
        return method in STARTING


@contextlib.asynccontextmanager
async def _nothing() -> AsyncIterator[None]:
    """The door runs nothing of its own while the address serves: its state is the
    engine's."""
    yield
