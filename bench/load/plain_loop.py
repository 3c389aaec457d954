"""The baseline of the load suite: the same burst as `scenarios.burst` through a plain
asyncio loop with the `openai` client against the same fake model, nothing stored or
streamed on to a client. Bounded in count."""

from __future__ import annotations

import asyncio
import tempfile
import time
from contextlib import suppress
from pathlib import Path
from typing import Any

from bench.load import processes
from bench.load.scenarios import Config, Result


async def baseline(config: Config) -> Result:
    """The same burst through a plain asyncio loop with the `openai` client (concurrency =
    slots): two model calls and a local calculation per task, nothing stored or streamed."""
    import httpx2
    import openai

    result = Result("baseline: asyncio + openai")
    with tempfile.TemporaryDirectory(prefix="agentd-load-") as folder:
        model = processes.start_model(Path(folder), config.hold)
        try:
            pool = httpx2.Limits(
                max_connections=config.slots, max_keepalive_connections=config.slots
            )
            client = openai.AsyncOpenAI(
                base_url=model.address,
                api_key="k",
                max_retries=0,
                http_client=openai.DefaultAsyncHttpxClient(limits=pool),
            )
            slots = asyncio.Semaphore(config.slots)
            in_flight = peak = 0

            async def one(n: int) -> float:
                nonlocal in_flight, peak
                async with slots:
                    in_flight += 1
                    peak = max(peak, in_flight)
                    started = time.monotonic()
                    messages: list[dict[str, object]] = [{"role": "user", "content": f"job-{n}"}]
                    asked = await _streamed(client, messages)
                    answer = str(40 + 2) if asked else ""  # the tool call, done locally
                    messages.append({"role": "assistant", "content": ""})
                    messages.append({"role": "tool", "tool_call_id": "c", "content": answer})
                    await _streamed(client, messages)
                    in_flight -= 1
                    return time.monotonic() - started

            alone = await one(0)
            result.capacity = config.slots / alone
            result.footprint.idle_rss_kib = processes.rss_kib_self()
            stop = asyncio.Event()
            sampler = asyncio.create_task(_self_rss(stop))
            started = time.monotonic()
            latencies = await asyncio.gather(*(one(n) for n in range(config.tasks)))
            result.wall = time.monotonic() - started
            stop.set()
            result.footprint.peak_rss_kib = await sampler
            result.footprint.peak_in_flight = peak
            result.submitted = result.completed = len(latencies)
            result.latencies = list(latencies)
            await client.close()
        finally:
            model.stop()
    return result


async def _streamed(client: Any, messages: list[dict[str, object]]) -> bool:
    """One streamed chat call, read to its end; whether the model asked for a tool."""
    stream = await client.chat.completions.create(model="fake", messages=messages, stream=True)
    asked = False
    async for chunk in stream:
        for choice in chunk.choices:
            asked = asked or bool(choice.delta.tool_calls)
    return asked


async def _self_rss(stop: asyncio.Event) -> int:
    peak = 0
    while not stop.is_set():
        peak = max(peak, processes.rss_kib_self())
        with suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.1)
    return peak
