"""Function-calling ReAct: the model calls tools natively until it answers.

Each iteration is one model call plus the tool calls it asks for (run
concurrently, bounded). On the last allowed iteration the tools are
withdrawn so the model must answer from what it has. The same tool with the
same arguments `max_repeated_calls` times in a row stops the loop. A failed
or refused tool call is an observation the model sees.
"""

from __future__ import annotations

import json
import time
from collections import deque
from typing import Any

from agent import events as ev
from agent import prompts
from agent.limits import LimitReached, step_timeout
from agent.llm.base import Message, ModelSettings, ToolCall
from agent.modes import Outcome
from agent.run import TaskRun
from agent.tasks import StopReason


def _key(call: ToolCall) -> str:
    try:
        return call.name + json.dumps(call.arguments(), sort_keys=True)
    except ValueError:
        return call.name + call.arguments_json


async def run(task: TaskRun) -> Outcome:
    config = task.config
    limit = task.task.max_iterations
    tools = task.tool_definitions()
    saved = task.resume_state()
    if saved:
        messages: list[Message] = list(saved["messages"])
        first: int = saved["iteration"]
        used_tools: bool = saved["used_tools"]
        recent: deque[str] = deque(saved["recent"], maxlen=config.max_repeated_calls)
        pending: tuple[ToolCall, ...] = tuple(saved["pending"])
    else:
        messages = [
            Message("system", prompts.FUNCTION_CALLING_SYSTEM),
            Message("user", prompts.task_prompt(task.task.task, task.task.context)),
        ]
        first, used_tools, pending = 1, False, ()
        recent = deque(maxlen=config.max_repeated_calls)

    def state(iteration: int, calls: tuple[ToolCall, ...] = ()) -> dict[str, Any]:
        return {
            "messages": list(messages),
            "iteration": iteration,
            "used_tools": used_tools,
            "recent": list(recent),
            "pending": calls,
        }

    for iteration in range(first, limit + 1):
        last = iteration == limit
        step_id, started = await task.begin_iteration(iteration, last)
        if last and used_tools:
            messages.append(Message("user", prompts.LAST_ROUND))
        text = ""
        dropped = 0
        try:
            async with step_timeout(config.step_timeout_seconds):
                if pending:  # resumed: the model asked for these before the checkpoint
                    calls, pending = pending, ()
                else:
                    response = await task.model(
                        "executor",
                        step_id,
                        messages,
                        tools=() if last else tools,
                        settings=ModelSettings(tool_choice="auto"),
                    )
                    text = response.text
                    calls = response.tool_calls if not last else ()
                    dropped = max(0, len(calls) - config.max_tool_calls_per_turn)
                    calls = calls[: config.max_tool_calls_per_turn]
                    for call in calls:
                        recent.append(_key(call))
                        if len(recent) == config.max_repeated_calls and len(set(recent)) == 1:
                            raise LimitReached(
                                StopReason.REPEATED_TOOL_CALL,
                                f"the model called {call.name} with the same arguments "
                                f"{config.max_repeated_calls} times in a row",
                            )
                    if calls:
                        messages.append(Message("assistant", response.text, tool_calls=calls))
                        if not all(task.may_repeat(c.name) for c in calls):
                            await task.checkpoint(state(iteration, calls))
                if calls:
                    planned: list[tuple[str, dict[str, Any] | None, str]] = []
                    for call in calls:
                        try:
                            planned.append((call.name, call.arguments(), ""))
                        except ValueError as bad:
                            planned.append((call.name, None, str(bad)))
                    observations = await task.call_tools(step_id, planned)
                    for call, observation in zip(calls, observations, strict=True):
                        messages.append(
                            Message("tool", observation.text, tool_call_id=call.id, name=call.name)
                        )
                    if dropped:
                        messages.append(
                            Message("user", prompts.too_many_calls(len(calls), dropped))
                        )
                    used_tools = True
        except TimeoutError:
            raise await task.iteration_timed_out(step_id, iteration, started) from None
        await task.record_progress(iteration, limit)
        if calls:
            summary = ", ".join(f"{c.name}" for c in calls)
            await task.emit(
                ev.StepFinished(step_id, True, f"called {summary}", time.perf_counter() - started)
            )
            await task.checkpoint(state(iteration + 1))
            continue
        answer = text.strip()
        await task.emit(
            ev.StepFinished(step_id, bool(answer), answer[:500], time.perf_counter() - started)
        )
        if not answer:
            if last:
                raise LimitReached(
                    StopReason.MAX_ITERATIONS, f"no answer within {limit} iterations"
                )
            messages.append(Message("assistant", ""))
            messages.append(Message("user", prompts.EMPTY_REPLY))
            continue
        if last and used_tools:
            return Outcome(
                answer,
                StopReason.MAX_ITERATIONS,
                f"the iteration limit ({limit}) was reached; tools were withdrawn for the last "
                "round and the model answered from what it had",
            )
        return Outcome(answer)
    raise LimitReached(StopReason.MAX_ITERATIONS, f"no answer within {limit} iterations")
