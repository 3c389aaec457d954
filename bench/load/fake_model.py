"""A fake OpenAI-compatible model for the load suite: holds each chat call a given time.

Stateless, so any number of tasks can share it: a request whose last message is a tool
result, or asks it to "answer at once", gets a short text answer (streamed in a few
chunks, usage in the last one); any other request gets one tool call: `calculator`,
or, with `--post URL`, an `http_request` POST to URL whose body is the `job-...` word
of the task (so that the load suite can count how often each task's non-idempotent call
reached the server).

    python -m bench.load.fake_model --port 0 --hold 2.0 [--post http://127.0.0.1:N/record]

Prints `fake model on http://127.0.0.1:PORT/v1` once it listens. Loopback only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import signal
import time
from typing import Any

from aiohttp import web

JOB = re.compile(r"job-[0-9a-z-]+")
USAGE = {"prompt_tokens": 20, "completion_tokens": 8, "total_tokens": 28}
"""What the model reports each call spent (the usage agentd meters)."""


def _reply(body: dict[str, Any], post: str) -> tuple[str, list[dict[str, Any]]]:
    messages = body.get("messages") or [{}]
    if messages[-1].get("role") == "tool":
        return "The answer is 42.", []
    if "answer at once" in str(messages[-1].get("content")):  # a task that calls no tool
        return "Done at once.", []
    if post:
        text = " ".join(str(m.get("content") or "") for m in messages)
        found = JOB.search(text)
        arguments = {"url": post, "method": "POST", "body": found.group(0) if found else "?"}
        return "", [{"name": "http_request", "arguments": arguments}]
    return "", [{"name": "calculator", "arguments": {"expression": "40+2"}}]


def _chunk(model: str, delta: dict[str, Any], finish: str | None = None) -> bytes:
    payload = {
        "id": "chatcmpl-load",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(payload)}\n\n".encode()


class FakeModel:
    def __init__(self, hold: float, post: str) -> None:
        self.hold = hold
        self.post = post
        self.calls = 0

    async def chat(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.calls += 1
        await asyncio.sleep(self.hold)
        text, calls = _reply(body, self.post)
        model = str(body.get("model", "fake"))
        usage = USAGE
        tool_calls = [
            {
                "index": i,
                "id": f"call_{self.calls}_{i}",
                "type": "function",
                "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])},
            }
            for i, c in enumerate(calls)
        ]
        if not body.get("stream"):
            message: dict[str, Any] = {"role": "assistant", "content": text or None}
            if tool_calls:
                message["tool_calls"] = [
                    {k: v for k, v in t.items() if k != "index"} for t in tool_calls
                ]
            return web.json_response(
                {
                    "id": "chatcmpl-load",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": model,
                    "choices": [
                        {
                            "index": 0,
                            "message": message,
                            "finish_reason": "tool_calls" if calls else "stop",
                        }
                    ],
                    "usage": usage,
                }
            )
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        if tool_calls:
            await response.write(_chunk(model, {"role": "assistant", "tool_calls": tool_calls}))
            await response.write(_chunk(model, {}, "tool_calls"))
        else:
            for piece in (text[:7], text[7:14], text[14:]):
                await response.write(_chunk(model, {"role": "assistant", "content": piece}))
            await response.write(_chunk(model, {}, "stop"))
        tail = {
            "id": "chatcmpl-load",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": model,
            "choices": [],
            "usage": usage,
        }
        await response.write(f"data: {json.dumps(tail)}\n\n".encode())
        await response.write(b"data: [DONE]\n\n")
        await response.write_eof()
        return response


async def serve(port: int, hold: float, post: str) -> None:
    model = FakeModel(hold, post)
    app = web.Application(client_max_size=8 * 1024 * 1024)
    app.router.add_post("/v1/chat/completions", model.chat)
    runner = web.AppRunner(app, access_log=None, handler_cancellation=True)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", port, backlog=4096)
    await site.start()
    bound = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    print(f"fake model on http://127.0.0.1:{bound}/v1", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await runner.cleanup()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--hold", type=float, default=2.0, help="seconds each call is held")
    parser.add_argument("--post", default="", help="make each task POST its job word here")
    args = parser.parse_args()
    asyncio.run(serve(args.port, args.hold, args.post))


if __name__ == "__main__":
    main()
