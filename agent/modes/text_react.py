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
from typing import Any, NoReturn

from agent import prompts
from agent.failures import ModelOutputInvalidError
from agent.limits import LimitReached, step_timeout
from agent.modes.loops import RepeatWatch, until_answered
from agent.running.answers import Outcome
from agent.running.run import TaskRun
from agent.seeing import inputs
from records import events as ev
from records.messages import Message, ModelSettings
from records.mode_state import TextReactState
from records.tasks import StopReason
from records.tools.model import ToolSpec

FINAL = re.compile(r"final\s*answer\s*:\s*(.*)", re.IGNORECASE | re.DOTALL)
ACTION = re.compile(r"^\s*action\s*:\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)
ACTION_INPUT = re.compile(r"action\s*input\s*:\s*(.*)", re.IGNORECASE | re.DOTALL)
STOP = ("Observation:",)
SETTINGS = ModelSettings(stop=STOP)


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


class _Loop:
    """One text ReAct run: the conversation so far and where it stands."""

    def __init__(self, run: TaskRun) -> None:
        self.run = run
        self.fresh = False
        """Whether it starts the task's conversation (not one a checkpoint kept)."""
        self.limit = run.task.max_iterations
        self.specs = run.tools.specs
        saved = run.state.resume_state()
        self.repeats = RepeatWatch(run.config.tools.max_repeated_calls)
        self.pending: Action | None = None
        self.reply = ""
        """The model's latest reply, up to its Observation."""
        if isinstance(saved, TextReactState):
            self.messages = list(saved.messages)
            self.first = saved.iteration
            self.repeats = RepeatWatch(run.config.tools.max_repeated_calls, saved.recent)
            if saved.tool:
                self.pending = Action(saved.tool, saved.arguments, saved.problem)
        else:
            self.messages = run.transcript.opening(
                prompts.react_system(list(self.specs.values())),
                prompts.task_prompt(run.task.goal, run.task.context),
            )
            self.first = 1
            self.fresh = True

    def state(self, iteration: int, action: Action | None = None) -> TextReactState:
        messages, recent = tuple(self.messages), tuple(self.repeats.recent)
        if action is None:
            return TextReactState(messages, iteration, recent=recent)
        return TextReactState(
            messages, iteration, action.tool, action.arguments, action.problem, recent
        )

    async def iterate(self, iteration: int) -> Outcome | None:
        """One reply and the action it names; the outcome once it gives a final answer."""
        run, last = self.run, iteration == self.limit
        step_id, started = await run.transcript.begin_iteration(
            iteration, last, again=bool(self.pending)
        )
        if self.pending is None:  # a safe point: the action before it has its observation
            await self._steered(step_id)
        if last and iteration > 1 and self.pending is None:
            self.messages.append(Message("user", prompts.REACT_LAST_ROUND))
        try:
            async with step_timeout(run.config.step_timeout_seconds):
                parsed = self.pending if self.pending else await self._reply(step_id, last)
                if parsed is None or (last and isinstance(parsed, Action)):
                    await self._unusable(step_id, started, last)
                if isinstance(parsed, Final):
                    took = time.perf_counter() - started
                    await run.transcript.emit(
                        ev.StepFinished(step_id, True, parsed.answer[:500], took)
                    )
                    run.task.current_step = iteration
                    if not last and await self._steered_after(step_id):
                        return None  # a steer came while the model answered: once more
                    return Outcome(parsed.answer)
                await self._act(step_id, iteration, parsed)
        except TimeoutError:
            raise await run.transcript.iteration_timed_out(
                step_id, iteration, started, run.config.step_timeout_seconds
            ) from None
        await run.transcript.record_progress(iteration, self.limit)
        took = time.perf_counter() - started
        failing = run.tools.failing()
        await run.transcript.emit(
            ev.StepFinished(step_id, failing is None, f"called {parsed.tool}", took)
        )
        if failing is not None:
            raise failing
        await run.checkpoint(self.state(iteration + 1))
        return None

    async def _steered(self, step_id: str, *, look: bool = False) -> bool:
        """Add the steers not taken yet as user messages; whether there were any."""
        steers = await self.run.transcript.take_steers(step_id, look=look)
        self.messages.extend(Message("user", steer.message) for steer in steers)
        return bool(steers)

    async def _steered_after(self, step_id: str) -> bool:
        """Whether a steer came while the model gave its final answer (then the answer and
        the steers join the conversation, and the loop goes on)."""
        kept = len(self.messages)
        self.messages.append(Message("assistant", self.reply))
        if await self._steered(step_id, look=True):
            return True
        del self.messages[kept:]
        return False

    async def _reply(self, step_id: str, last: bool) -> Action | Final | None:
        """The model's reply, parsed; asked once more with a correction if it is unusable."""
        parsed: Action | Final | None = None
        for attempt in (1, 2):
            response = await self.run.model("executor", step_id, self.messages, settings=SETTINGS)
            self.reply = response.text.split("Observation:", 1)[0].rstrip()
            parsed = parse(self.reply, self.specs)
            if parsed is not None and not (last and isinstance(parsed, Action)):
                break
            if attempt == 1:
                self.messages.append(Message("assistant", self.reply))
                correction = prompts.REACT_LAST_ROUND if last else prompts.REACT_CORRECTION
                self.messages.append(Message("user", correction))
        return parsed

    async def _unusable(self, step_id: str, started: float, last: bool) -> NoReturn:
        took = time.perf_counter() - started
        await self.run.transcript.emit(ev.StepFinished(step_id, False, "unparseable reply", took))
        if last and self.run.transcript.notes:
            raise LimitReached(
                StopReason.MAX_ITERATIONS, f"no final answer within {self.limit} iterations"
            )
        raise ModelOutputInvalidError(
            "the model's reply follows neither the Action nor the Final Answer format, "
            "even after a corrective prompt"
        )

    async def _act(self, step_id: str, iteration: int, action: Action) -> None:
        """Run the action; its observation joins the conversation."""
        if self.pending is None:
            key = action.tool + json.dumps(action.arguments, sort_keys=True, default=str)
            self.repeats.saw(action.tool, key)
            self.messages.append(Message("assistant", self.reply))
            if not self.run.tools.may_repeat(action.tool):
                await self.run.checkpoint(self.state(iteration, action))
        self.run.state.pending = self.state(iteration, action)  # a parked task resumes here
        self.pending = None
        observation = await self.run.tools.call(
            step_id,
            action.tool,
            action.arguments,
            bad_arguments=action.problem,
            key=f"{step_id}/action",
        )
        self.run.state.pending = None
        said = f"Observation: {observation.text}"  # with the images it returned, if any
        self.messages.append(Message("user", said, parts=observation.images))


async def run(run: TaskRun) -> Outcome:
    loop = _Loop(run)
    if loop.fresh:  # the first user message shows the task's files and images
        await inputs.with_inputs(run, loop.messages)
    return await until_answered(loop, f"no final answer within {loop.limit} iterations")
