"""A real OpenAI-compatible HTTP server that plays a script of replies.

Tests run it in-process so that the real `openai` client, HTTP, streaming
(server-sent events) and tool-call parsing are exercised end to end; gateway
teams run it with `agentd fake-llm --script FILE --port N` to test against
agentd without a model.

What a script holds, and which reply answers which request (in order, by role,
once or cycling), is in `agent.llm.fakes.script`. A request no reply is left for is
answered 500 `script exhausted`. Every request body is kept in `requests`; with a
`log`, each request is also written there as one JSON line (`RequestLog`). Like
OpenAI, it answers 400 to a request offering a tool whose name is not 1-64 of
`[a-zA-Z0-9_-]`, and with a `context_window` 400 `context_length_exceeded` to one
that does not fit it (`agent.llm.fakes.window`). `/v1/moderations` flags texts holding
one of its words (`agent.llm.fakes.moderation`).
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any, TextIO

from aiohttp import web

from agent.llm.fakes import window as fake_window
from agent.llm.fakes.embeddings import DEFAULT_DIMENSIONS, FakeEmbeddings
from agent.llm.fakes.log import RequestLog
from agent.llm.fakes.moderation import DEFAULT_WORDS, FakeModeration
from agent.llm.fakes.received import ReceivedImage, images_of, text_of
from agent.llm.fakes.rerank import FakeRerank
from agent.llm.fakes.script import Script, role_of
from agent.llm.testing import split_text

JSON = dict[str, Any]


FUNCTION_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def _bad_tool_name(body: JSON) -> str:
    """What OpenAI says of a request whose tool (function) name it does not accept."""
    for index, tool in enumerate(body.get("tools") or []):
        name = str(((tool or {}).get("function") or {}).get("name", ""))
        if not FUNCTION_NAME.fullmatch(name):
            return (
                f"Invalid 'tools[{index}].function.name': string does not match pattern. "
                "Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'."
            )
    return ""


class FakeOpenAIServer:
    """Serve `/v1/chat/completions`, `/embeddings`, `/rerank`, `/moderations` and `/models`
    on 127.0.0.1."""

    def __init__(
        self,
        replies: Sequence[JSON] | Script = (),
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        model: str = "fake-model",
        log: TextIO | None = None,
        context_window: int | None = None,
        embedding_dimensions: int = DEFAULT_DIMENSIONS,
        moderation_words: Mapping[str, str] = DEFAULT_WORDS,
    ) -> None:
        self.embeddings = FakeEmbeddings(embedding_dimensions)
        """`/v1/embeddings` (`agent.llm.fakes.embeddings`)."""
        self.rerank = FakeRerank()
        """`/v1/rerank` (`agent.llm.fakes.rerank`)."""
        self.moderation = FakeModeration(dict(moderation_words))
        """`/v1/moderations` (`agent.llm.fakes.moderation`)."""
        self.script = replies if isinstance(replies, Script) else Script(replies)
        self._log = RequestLog(log) if log is not None else None
        self._host = host
        self._port = port
        self._model = model
        self._runner: web.AppRunner | None = None
        self.context_window = context_window
        """None, or requests past it are refused (`agent.llm.fakes.window`)."""
        self.refused_too_long = 0
        self.requests: list[JSON] = []
        self.images: list[list[ReceivedImage]] = []
        """The image parts each request carried (`agent.llm.fakes.received`), in order."""
        self._holds: dict[str, asyncio.Event] = {}
        self._waiting: set[str] = set()

    def _hold(self, name: str) -> asyncio.Event:
        return self._holds.setdefault(name, asyncio.Event())

    def release(self, name: str) -> None:
        """Let the replies held as `name` be sent (now, or as soon as they are asked for)."""
        self._hold(name).set()

    def held(self, name: str) -> bool:
        """Whether a request is waiting on the hold `name` now."""
        return name in self._waiting

    @property
    def port(self) -> int:
        return self._port

    @property
    def base_url(self) -> str:
        return f"http://{self._host}:{self._port}/v1"

    @property
    def remaining(self) -> int:
        """Answers the script still has in this round (replies served for ever not
        counted)."""
        return self.script.remaining

    def add(self, *replies: JSON) -> None:
        """More replies for any request (the script's shared part)."""
        self.script.shared.add(*replies)

    def received_text(self, index: int = -1) -> str:
        """All the text request `index` sent (the last by default)."""
        return text_of(self.requests[index])

    def assert_complete(self) -> None:
        assert self.remaining == 0, f"{self.remaining} scripted replies were not used"

    async def start(self) -> FakeOpenAIServer:
        app = web.Application(client_max_size=16 * 1024 * 1024)
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_get("/v1/models", self._models)
        app.router.add_post("/v1/embeddings", self.embeddings.handle)
        app.router.add_post("/v1/rerank", self.rerank.handle)
        app.router.add_post("/v1/moderations", self.moderation.handle)
        self._runner = web.AppRunner(app, access_log=None, handler_cancellation=True)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self._host, self._port)
        await site.start()
        server = site._server  # aiohttp exposes the bound port only here
        assert server is not None
        self._port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]
        return self

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeOpenAIServer:
        return await self.start()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    async def _models(self, request: web.Request) -> web.Response:
        return web.json_response(
            {
                "object": "list",
                "data": [{"id": self._model, "object": "model", "owned_by": "agentd"}],
            }
        )

    def _take(self, body: JSON) -> JSON | str:
        """The reply for a request, or why there is none."""
        role = role_of(body)
        answer = self.script.take(body, role)
        if self._log is not None:
            self._log.write(body, role, answer)
        if answer is None:
            part = self.script.part_for(role).name
            return f"script exhausted: no reply left in {part} for this {role or 'other'} request"
        return answer.reply

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        try:
            body = await request.json()
        except json.JSONDecodeError:
            return _error(400, "request body is not JSON")
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return _error(400, "`messages` is required")
        refused = _bad_tool_name(body)
        if refused:
            return _error(400, refused)
        self.requests.append(body)
        self.images.append(images_of(body))
        if self.context_window is not None:
            too_long = fake_window.refusal(body, self.context_window)
            if too_long is not None:
                self.refused_too_long += 1
                return _error(400, too_long, code="context_length_exceeded")
        reply = self._take(body)
        if isinstance(reply, str):
            return _error(500, reply, "server_error")
        if reply.get("delay_seconds"):
            await asyncio.sleep(float(reply["delay_seconds"]))
        if reply.get("hold"):
            name = str(reply["hold"])
            self._waiting.add(name)
            try:
                await self._hold(name).wait()
            finally:
                self._waiting.discard(name)
        if "error" in reply:
            error = reply["error"]
            return _error(
                int(error.get("status", 500)),
                str(error.get("message", "scripted error")),
                error.get("type"),
                error.get("code"),
            )
        if reply.get("drop"):
            assert request.transport is not None
            request.transport.close()
            return web.Response(status=500)
        if body.get("stream"):
            return await self._stream(request, body, reply)
        return web.json_response(self._completion(body, reply))

    def _parts(self, body: JSON, reply: JSON) -> tuple[str, str, list[JSON], str, JSON | None]:
        text = reply.get("text", "")
        if "json" in reply:
            text = json.dumps(reply["json"])
        calls: list[JSON] = []
        for i, call in enumerate(reply.get("tool_calls", []), 1):
            raw = (
                call["arguments_raw"]
                if "arguments_raw" in call
                else json.dumps(call.get("arguments", {}))
            )
            calls.append(
                {
                    "id": call.get("id", f"call_{i}_{time.monotonic_ns() % 10**8}"),
                    "type": "function",
                    "function": {"name": call["name"], "arguments": raw},
                }
            )
        finish = reply.get("finish_reason", "tool_calls" if calls else "stop")
        usage: JSON | None = None
        if "usage" not in reply or reply["usage"] is not None:
            usage = {"prompt_tokens": 10, "completion_tokens": 5, **reply.get("usage", {})}
            if fake_window.cut_at_limit(
                body, usage
            ):  # as an endpoint does: the reply ends at the limit
                text, calls, finish = text[: usage["completion_tokens"] * 4], [], "length"
            usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        return text, reply.get("reasoning", ""), calls, finish, usage

    def _completion(self, body: JSON, reply: JSON) -> JSON:
        text, reasoning, calls, finish, usage = self._parts(body, reply)
        message: JSON = {"role": "assistant", "content": text if text or not calls else None}
        if reasoning:
            message["reasoning_content"] = reasoning
        if calls:
            message["tool_calls"] = calls
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", self._model),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            **({"usage": usage} if usage is not None else {}),
        }

    async def _stream(self, request: web.Request, body: JSON, reply: JSON) -> web.StreamResponse:
        text, reasoning, calls, finish, usage = self._parts(body, reply)
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        )
        await response.prepare(request)
        base = {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": body.get("model", self._model),
        }

        async def send(delta: JSON, finish_reason: str | None = None, **extra: Any) -> None:
            chunk = {
                **base,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
                **extra,
            }
            await response.write(f"data: {json.dumps(chunk)}\n\n".encode())

        pieces = max(1, int(reply.get("chunks", 3)))
        await send({"role": "assistant", "content": ""})
        for piece in split_text(reasoning, pieces):
            await send({"reasoning_content": piece})
        cut_after = reply.get("cut_after")
        for index, piece in enumerate(split_text(text, pieces)):
            if cut_after is not None and index >= int(cut_after):  # a provider failing mid-reply
                assert request.transport is not None
                request.transport.close()
                return response
            await send({"content": piece})
        for index, call in enumerate(calls):
            arguments = call["function"]["arguments"]
            await send(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": call["id"],
                            "type": "function",
                            "function": {"name": call["function"]["name"], "arguments": ""},
                        }
                    ]
                }
            )
            for piece in split_text(arguments, 2):
                await send({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
        await send({}, finish)
        if usage is not None and (body.get("stream_options") or {}).get("include_usage"):
            await response.write(
                f"data: {json.dumps({**base, 'choices': [], 'usage': usage})}\n\n".encode()
            )
        await response.write(b"data: [DONE]\n\n")
        await response.write_eof()
        return response


def _error(
    status: int, message: str, kind: str | None = None, code: str | None = None
) -> web.Response:
    kinds = {400: "invalid_request_error", 401: "authentication_error", 429: "rate_limit_error"}
    return web.json_response(
        {
            "error": {
                "message": message,
                "type": kind or kinds.get(status, "server_error"),
                "code": code,
            }
        },
        status=status,
    )
