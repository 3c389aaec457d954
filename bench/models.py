"""Models: what fitting a long in-task transcript costs, and what the router adds.

Fitting: a function-calling transcript of 200 messages (the system prompt, the goal,
then 99 tool calls and their results of about 4,000 characters each: a task deep in
its iterations) is fitted into an 8k-token window (`agent.llm.window.fitting.fit_request`,
as every model call does), counted by the estimate (a model without an OpenAI
encoding) and, when the tiktoken ranks are present, with o200k_base (gpt-4o) into
gpt-4o's own window of 128k, where it fits without a cut. The baseline is counting
the transcript's tokens alone, which any request needs. Figures are medians (p50) of
a bounded number of runs.

Router: the router model's call (its prompt, structured output, the JSON read back)
against the fake OpenAI-compatible server over HTTP, against a plain executor call
to the same server measured in the same run: what auto mode with a router model
adds before the task's first real model call.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from agent import prompts
from agent.llm.fakes.server import FakeOpenAIServer
from agent.llm.openai import OpenAIModel
from agent.llm.structured import json_reply
from agent.llm.window import fitting
from agent.llm.window.catalog import BUILT_IN_CATALOG, ModelLimits
from agent.llm.window.encodings import Encodings
from agent.llm.window.fitting import fit_request
from agent.llm.window.tokens import ESTIMATE, TokenCounter, message_tokens
from agent.modes.llm_router import SETTINGS as ROUTE
from records.messages import Message, ModelSettings, ToolCall

MESSAGES = 200
FIT_RUNS = 20
CALL_RUNS = 100
RANKS = Path(__file__).resolve().parent.parent / "var" / "tiktoken"
RESULT = (
    '{"id": %d, "title": "Quarterly report, part %d", "status": "final", "body": "'
    + "Revenue grew in every region; costs stayed flat; the outlook is unchanged. " * 50
    + '"}'
)


def transcript() -> list[Message]:
    """200 messages: system, goal, then 99 calls and their results."""
    messages = [
        Message("system", prompts.FUNCTION_CALLING_SYSTEM),
        Message("user", "Read every part of the quarterly report and summarise it."),
    ]
    for n in range((MESSAGES - 2) // 2):
        call = ToolCall(f"call_{n}", "read_file", f'{{"path": "report/part{n}.json"}}')
        messages.append(Message("assistant", "", tool_calls=(call,)))
        messages.append(Message("tool", RESULT % (n, n), tool_call_id=call.id, name="read_file"))
    return messages


def _p50_ms(runs: list[float]) -> float:
    return statistics.median(runs) * 1000


def _fit_figures(
    label: str, messages: list[Message], limits: ModelLimits, counter: TokenCounter
) -> None:
    counting: list[float] = []
    cold: list[float] = []
    warm: list[float] = []
    fitted = None
    for _ in range(FIT_RUNS):
        started = time.perf_counter()
        total = sum(message_tokens(m, counter) for m in messages)
        counting.append(time.perf_counter() - started)
        fitting.forget_counts()
        started = time.perf_counter()
        fit_request(messages, (), limits, counter)
        cold.append(time.perf_counter() - started)
        started = time.perf_counter()
        fitted = fit_request(messages, (), limits, counter)
        warm.append(time.perf_counter() - started)
    assert fitted is not None
    base = _p50_ms(counting)
    print(
        f"  {label}: {total:,} -> {fitted.prompt_tokens:,} tokens (saved "
        f"{fitted.saved_tokens:,}; {fitted.clipped} clipped, {fitted.dropped} left out; "
        f"max_tokens {fitted.max_tokens})\n"
        f"    fit p50 {_p50_ms(warm):.2f} ms in a running task (its messages counted before), "
        f"{_p50_ms(cold):.2f} ms counting every message anew; counting alone {base:.2f} ms"
    )


async def _calls(model: OpenAIModel, messages: list[Message], settings: ModelSettings) -> float:
    runs: list[float] = []
    for _ in range(CALL_RUNS):
        started = time.perf_counter()
        response = await model.complete(messages, settings=settings)
        if settings.json_schema is not None:
            json_reply(response)
        runs.append(time.perf_counter() - started)
    return _p50_ms(runs)


async def _router_figures() -> None:
    decision = {"json": {"decision": "plan_and_execute", "reason": "several steps"}, "repeat": -1}
    async with FakeOpenAIServer([decision]) as llm:
        model = OpenAIModel("router-model", base_url=llm.base_url, max_attempts=1)
        try:
            task = "首先查一下北京的天气，然后查一下上海的天气，最后比较两地的温度。"
            routed = [Message("system", prompts.router_system(())), Message("user", task)]
            plain = [Message("system", prompts.FUNCTION_CALLING_SYSTEM), Message("user", task)]
            await _calls(model, plain, ModelSettings())  # warm the connection
            base = await _calls(model, plain, ModelSettings())
            router = await _calls(model, routed, ROUTE)
        finally:
            await model.close()
    print(
        f"  router call p50 {router:.2f} ms against a plain model call {base:.2f} ms "
        f"(x{router / base:.2f}), fake model over HTTP, {CALL_RUNS} calls each"
    )


async def main() -> None:
    messages = transcript()
    print(f"Models: fitting a {len(messages)}-message in-task transcript, and the router")
    _fit_figures("8k window, estimated counts", messages, ModelLimits(8_192, 1_024), ESTIMATE)
    encodings = Encodings(RANKS if RANKS.is_dir() else None)
    encodings.load()
    counter = encodings.for_model("gpt-4o")
    if counter.name != "estimate":
        limits = BUILT_IN_CATALOG.limits("gpt-4o")
        _fit_figures("gpt-4o (128k), o200k_base counts", messages, limits, counter)
        small = ModelLimits(8_192, 1_024)
        _fit_figures("8k window, o200k_base counts", messages, small, counter)
    else:
        print("  (no tiktoken ranks: `make setup` builds them; exact-count figures skipped)")
    await _router_figures()


if __name__ == "__main__":
    import asyncio

    asyncio.run(main())
