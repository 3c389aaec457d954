"""`agentd fake-llm`: the fake OpenAI-compatible server (`agent.llm.fakes.server`) as a
command, one server per script (and one more per extra provider), until SIGTERM."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TextIO

from agent.llm.fakes.moderation import DEFAULT_WORDS, parse_words
from agent.llm.fakes.providers import FakeProvider, parse_provider
from agent.llm.fakes.script import Script
from agent.llm.fakes.server import FakeOpenAIServer


def banner(base_url: str, source: str, script: Script, log_to: str = "") -> str:
    """The line `agentd fake-llm` starts with: where it serves, what it plays."""
    logged = f"; requests logged to {log_to}" if log_to else ""
    return (
        f"fake OpenAI-compatible server on {base_url} playing {source}: {script.describe()}{logged}"
    )


async def serve_forever(
    script: Script,
    port: int,
    host: str = "127.0.0.1",
    *,
    source: str = "a script",
    log: TextIO | None = None,
    log_to: str = "",
    context_window: int | None = None,
    providers: Sequence[FakeProvider] = (),
    moderation_words: Mapping[str, str] = DEFAULT_WORDS,
) -> None:
    """Run the server for `agentd fake-llm` (and one per extra provider) until SIGTERM."""
    import signal

    server = FakeOpenAIServer(
        script,
        host=host,
        port=port,
        log=log,
        context_window=context_window,
        moderation_words=moderation_words,
    )
    await server.start()
    print(banner(server.base_url, source, script, log_to), flush=True)
    others = [FakeOpenAIServer(p.script, host=host, port=p.port, log=log) for p in providers]
    for provider, other in zip(providers, others, strict=True):
        await other.start()
        print(
            f"provider {provider.name}: "
            + banner(other.base_url, provider.source, provider.script),
            flush=True,
        )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        for other in others:
            await other.stop()
        await server.stop()


def run(
    script: Path,
    port: int,
    host: str,
    log: str | None,
    context_window: int | None = None,
    providers: Sequence[str] = (),
    moderation_words: str = "",
) -> int:
    """`agentd fake-llm`: its exit status (2 for a script that cannot be played)."""
    try:
        played = Script.load(script)
        extra = [parse_provider(spec) for spec in providers]
        words = parse_words(moderation_words) if moderation_words else DEFAULT_WORDS
    except (OSError, ValueError) as bad:
        print(f"agentd fake-llm: {script}: {bad}", file=sys.stderr)
        return 2
    with contextlib.ExitStack() as stack:
        stream = None
        if log == "-":
            stream = sys.stderr
        elif log:
            stream = stack.enter_context(Path(log).open("a", encoding="utf-8"))
        where = "stderr" if log == "-" else (log or "")
        try:
            asyncio.run(
                serve_forever(
                    played,
                    port,
                    host,
                    source=script.name,
                    log=stream,
                    log_to=where,
                    context_window=context_window,
                    providers=extra,
                    moderation_words=words,
                )
            )
        except OSError as error:  # the address is taken, or not this machine's
            print(f"agentd fake-llm: cannot listen on {host}:{port}: {error}", file=sys.stderr)
            return 2
    return 0
