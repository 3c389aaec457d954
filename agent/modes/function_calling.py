"""Function-calling ReAct: the model calls tools natively until it answers.

Each iteration is one model call plus the tool calls it asks for (run
concurrently, bounded). On the last allowed iteration the tools are
withdrawn so the model must answer from what it has. The same tool with the
same arguments `max_repeated_calls` times in a row stops the loop. A failed
or refused tool call is an observation the model sees. Steers (`SteerTask`) join the
conversation as user messages before a model call, after the calls of the batch before
it; one taken as the model answers sends its answer back for another iteration.
"""

from __future__ import annotations

import json
import time

from agent import prompts
from agent.limits import LimitReached, step_timeout
from agent.modes.loops import RepeatWatch, until_answered
from agent.running.answers import Outcome
from agent.running.run import TaskRun
from agent.running.seams import PlannedCall
from agent.seeing import inputs
from records import events as ev
from records.messages import Message, ModelSettings, ToolCall
from records.mode_state import FunctionCallingState
from records.tasks import StopReason


def _planned(call: ToolCall) -> PlannedCall:
    """The call as `ToolCalls` makes it: its arguments parsed (the one parse of them)."""
    try:
        return call.name, call.arguments(), ""
    except ValueError as bad:
        return call.name, None, str(bad)


def _key(call: ToolCall, planned: PlannedCall) -> str:
    arguments = planned[1]
    if arguments is None:
        return call.name + call.arguments_json
    return call.name + json.dumps(arguments, sort_keys=True)


class _Loop:
    """One function-calling run: the conversation so far and where it stands."""

    def __init__(self, run: TaskRun) -> None:
        self.run = run
        self.fresh = False
        """Whether it starts the task's conversation (not one a checkpoint kept)."""
        self.config = run.config
        self.limit = run.task.max_iterations
        self.tools = run.tools.definitions()
        saved = run.state.resume_state()
        window = self.config.tools.max_repeated_calls
        if isinstance(saved, FunctionCallingState):
            self.messages = list(saved.messages)
            self.first, self.used_tools = saved.iteration, saved.used_tools
            self.repeats = RepeatWatch(window, saved.recent)
            self.pending = saved.pending
        else:
            self.messages = run.transcript.opening(
                prompts.FUNCTION_CALLING_SYSTEM,
                prompts.task_prompt(run.task.goal, run.task.context),
            )
            self.first, self.used_tools, self.pending = 1, False, ()
            self.fresh = True
            self.repeats = RepeatWatch(window)

    def state(self, iteration: int, calls: tuple[ToolCall, ...] = ()) -> FunctionCallingState:
        return FunctionCallingState(
            tuple(self.messages), iteration, self.used_tools, tuple(self.repeats.recent), calls
        )

    async def iterate(self, iteration: int) -> Outcome | None:
        """One model call and the tool calls it asks for; the outcome once it answers."""
        run, last = self.run, iteration == self.limit
        step_id, started = await run.transcript.begin_iteration(
            iteration, last, again=bool(self.pending)
        )
        if not self.pending:  # a safe point: the calls before it have their results
            await self._steered(step_id)
        if last and self.used_tools:
            self.messages.append(Message("user", prompts.LAST_ROUND))
        text, dropped = "", 0
        calls: tuple[ToolCall, ...] = ()
        planned: list[PlannedCall] = []
        try:
            async with step_timeout(self.config.step_timeout_seconds):
                if self.pending:  # resumed: the model asked for these before the checkpoint
                    calls, self.pending = self.pending, ()
                    planned = [_planned(call) for call in calls]
                else:
                    text, calls, planned, dropped = await self._ask(step_id, iteration, last)
                if calls:  # a task parked on one of them resumes from this state
                    run.state.pending = self.state(iteration, calls)
                    await self._call(step_id, calls, planned, dropped)
                    run.state.pending = None
        except TimeoutError:
            raise await run.transcript.iteration_timed_out(
                step_id, iteration, started, run.config.step_timeout_seconds
            ) from None
        await run.transcript.record_progress(iteration, self.limit)
        took = time.perf_counter() - started
        if calls:
            summary = ", ".join(f"{c.name}" for c in calls)
            failing = run.tools.failing()
            await run.transcript.emit(
                ev.StepFinished(step_id, failing is None, f"called {summary}", took)
            )
            if failing is not None:
                raise failing
            await run.checkpoint(self.state(iteration + 1))
            return None
        return await self._answered(text.strip(), step_id, took, last)

    async def _ask(
        self, step_id: str, iteration: int, last: bool
    ) -> tuple[str, tuple[ToolCall, ...], list[PlannedCall], int]:
        """The model's reply: its text, the calls to make now (and as planned: their
        arguments parsed), and how many were dropped."""
        config = self.config
        response = await self.run.model(
            "executor",
            step_id,
            self.messages,
            tools=() if last else self.tools,
            settings=ModelSettings(tool_choice="auto"),
        )
        calls = response.tool_calls if not last else ()
        dropped = max(0, len(calls) - config.tools.max_tool_calls_per_turn)
        calls = calls[: config.tools.max_tool_calls_per_turn]
        planned = [_planned(call) for call in calls]
        for call, plan in zip(calls, planned, strict=True):
            self.repeats.saw(call.name, _key(call, plan))
        if calls:
            self.messages.append(Message("assistant", response.text, tool_calls=calls))
            if not all(self.run.tools.may_repeat(c.name) for c in calls):
                await self.run.checkpoint(self.state(iteration, calls))
        return response.text, calls, planned, dropped

    async def _call(
        self,
        step_id: str,
        calls: tuple[ToolCall, ...],
        planned: list[PlannedCall],
        dropped: int,
    ) -> None:
        """Make the calls; their results (and any dropped calls) join the conversation."""
        observations = await self.run.tools.call_all(step_id, planned)
        for call, observation in zip(calls, observations, strict=True):
            self.messages.append(
                Message(
                    "tool",
                    observation.text,
                    tool_call_id=call.id,
                    name=call.name,
                    parts=observation.images,
                )
            )
        if dropped:
            self.messages.append(Message("user", prompts.too_many_calls(len(calls), dropped)))
        self.used_tools = True

    async def _steered(self, step_id: str, *, look: bool = False) -> bool:
        """Add the steers not taken yet as user messages; whether there were any."""
        steers = await self.run.transcript.take_steers(step_id, look=look)
        self.messages.extend(Message("user", steer.message) for steer in steers)
        return bool(steers)

    async def _answered(self, answer: str, step_id: str, took: float, last: bool) -> Outcome | None:
        """A reply without calls: the outcome, or None to ask again after an empty one or
        with a steer that came while the model answered."""
        await self.run.transcript.emit(ev.StepFinished(step_id, bool(answer), answer[:500], took))
        if answer and not last:
            steered = len(self.messages)
            self.messages.append(Message("assistant", answer))
            if await self._steered(step_id, look=True):
                return None
            del self.messages[steered:]
        if not answer:
            if last:
                raise LimitReached(
                    StopReason.MAX_ITERATIONS, f"no answer within {self.limit} iterations"
                )
            self.messages.append(Message("assistant", ""))
            self.messages.append(Message("user", prompts.EMPTY_REPLY))
            return None
        if last and self.used_tools:
            return Outcome(
                answer,
                StopReason.MAX_ITERATIONS,
                f"the iteration limit ({self.limit}) was reached; tools were withdrawn for the "
                "last round and the model answered from what it had",
            )
        return Outcome(answer)


async def run(run: TaskRun) -> Outcome:
    loop = _Loop(run)
    if loop.fresh:  # the first user message shows the task's files and images
        await inputs.with_inputs(run, loop.messages)
    return await until_answered(loop, f"no answer within {loop.limit} iterations")
