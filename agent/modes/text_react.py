"""Text ReAct for models without tool calling.

The model writes Thought / Action / Action Input, generation stops at
`Observation:` (a stop sequence), the engine runs the action and writes the
observation back. The parser forgives what models do: code fences, bare
(non-JSON) input for one-argument tools, trailing text, stray backticks. An
unparseable reply gets one corrective prompt before the step fails.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from typing import Any

from agent import events as ev
from agent import prompts
from agent.limits import LimitReached, ModelOutputInvalid, step_timeout
from agent.llm.base import Message, ModelSettings
from agent.modes import Outcome
from agent.run import TaskRun
from agent.tasks import StopReason
from tools.model import ToolSpec

FINAL = re.compile(r"final\s*answer\s*:\s*(.*)", re.IGNORECASE | re.DOTALL)
ACTION = re.compile(r"^\s*action\s*:\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)
ACTION_INPUT = re.compile(r"action\s*input\s*:\s*(.*)", re.IGNORECASE | re.DOTALL)
STOP = ("Observation:",)


@dataclass(frozen=True, slots=True)
class Action:
    tool: str
    arguments: dict[str, Any] | None
    problem: str = ""
    """Why the arguments could not be read, when they could not."""


@dataclass(frozen=True, slots=True)
class Final:
    answer: str


def _strip_fences(text: str) -> str:
    text = text.strip()
    fenced = re.match(r"^```[a-zA-Z]*\s*\n?(.*?)\n?```", text, re.DOTALL)
    return fenced.group(1).strip() if fenced else text


def _arguments(raw: str, spec: ToolSpec | None) -> tuple[dict[str, Any] | None, str]:
    text = _strip_fences(raw.split("Observation:", 1)[0])
    start = text.find("{")
    if start >= 0:
        try:
            value, _ = json.JSONDecoder().raw_decode(text[start:])
        except json.JSONDecodeError:
            pass
        else:
            if isinstance(value, dict):
                return value, ""
    bare = text.strip().strip("`").strip()
    if len(bare) >= 2 and bare[0] == bare[-1] and bare[0] in "\"'":
        bare = bare[1:-1]
    if spec is not None:
        properties = spec.parameters.get("properties", {})
        required = list(spec.parameters.get("required", []))
        candidates = required or list(properties)
        if len(candidates) == 1 and properties.get(candidates[0], {}).get("type") == "string":
            return {candidates[0]: bare}, ""
        if not bare and not required:
            return {}, ""
    return None, f"Action Input is not a JSON object: {bare[:200]!r}"


def parse(text: str, tools: dict[str, ToolSpec]) -> Action | Final | None:
    """The action or final answer in a ReAct reply, or None when there is neither."""
    action = ACTION.search(text)
    final = FINAL.search(text)
    if final and (not action or final.start() < action.start()):
        answer = final.group(1).strip()
        return Final(answer) if answer else None
    if not action:
        return None
    tool = action.group(1).strip().strip("`'\"[]").strip()
    rest = text[action.end() :]
    given = ACTION_INPUT.search(rest)
    arguments, problem = _arguments(given.group(1) if given else "", tools.get(tool))
    return Action(tool, arguments, problem)


async def run(task: TaskRun) -> Outcome:
    config = task.config
    limit = task.task.max_iterations
    specs = task.tool_specs
    saved = task.resume_state()
    if saved:
        messages: list[Message] = list(saved["messages"])
        first: int = saved["iteration"]
        pending: Action | None = (
            Action(saved["tool"], saved["arguments"], saved["problem"]) if saved["tool"] else None
        )
    else:
        messages = [
            Message("system", prompts.react_system(list(specs.values()))),
            Message("user", prompts.task_prompt(task.task.task, task.task.context)),
        ]
        first, pending = 1, None

    def state(iteration: int, action: Action | None = None) -> dict[str, Any]:
        return {
            "messages": list(messages),
            "iteration": iteration,
            "tool": action.tool if action else "",
            "arguments": action.arguments if action else None,
            "problem": action.problem if action else "",
        }

    settings = ModelSettings(stop=STOP)
    for iteration in range(first, limit + 1):
        last = iteration == limit
        step_id, started = await task.begin_iteration(iteration, last)
        if last and iteration > 1 and pending is None:
            messages.append(Message("user", prompts.REACT_LAST_ROUND))
        try:
            async with step_timeout(config.step_timeout_seconds):
                parsed: Action | Final | None = pending
                for attempt in (1, 2) if pending is None else ():
                    response = await task.model("executor", step_id, messages, settings=settings)
                    reply = response.text.split("Observation:", 1)[0].rstrip()
                    parsed = parse(reply, specs)
                    if parsed is not None and not (last and isinstance(parsed, Action)):
                        break
                    if attempt == 1:
                        messages.append(Message("assistant", reply))
                        messages.append(
                            Message(
                                "user",
                                prompts.REACT_LAST_ROUND if last else prompts.REACT_CORRECTION,
                            )
                        )
                if parsed is None or (last and isinstance(parsed, Action)):
                    await task.emit(
                        ev.StepFinished(
                            step_id, False, "unparseable reply", time.perf_counter() - started
                        )
                    )
                    if last and task.notes:
                        raise LimitReached(
                            StopReason.MAX_ITERATIONS, f"no final answer within {limit} iterations"
                        )
                    raise ModelOutputInvalid(
                        "the model's reply follows neither the Action nor the Final Answer format, "
                        "even after a corrective prompt"
                    )
                if isinstance(parsed, Final):
                    await task.emit(
                        ev.StepFinished(
                            step_id, True, parsed.answer[:500], time.perf_counter() - started
                        )
                    )
                    task.task.current_step = iteration
                    return Outcome(parsed.answer)
                if pending is None:
                    messages.append(Message("assistant", reply))
                    if not task.may_repeat(parsed.tool):
                        await task.checkpoint(state(iteration, parsed))
                pending = None
                observation = await task.call_tool(
                    step_id,
                    parsed.tool,
                    parsed.arguments,
                    bad_arguments=parsed.problem,
                    key=f"{step_id}/action",
                )
                messages.append(Message("user", f"Observation: {observation.text}"))
        except TimeoutError:
            raise await task.iteration_timed_out(step_id, iteration, started) from None
        await task.record_progress(iteration, limit)
        await task.emit(
            ev.StepFinished(step_id, True, f"called {parsed.tool}", time.perf_counter() - started)
        )
        await task.checkpoint(state(iteration + 1))
    raise LimitReached(StopReason.MAX_ITERATIONS, f"no final answer within {limit} iterations")
