"""Holding a final answer to its agent's output schema.

An agent with an `output_schema` promises its callers JSON of that shape. A final
answer that is not (code fences and surrounding prose tolerated) gets one more
model call asking for exactly that JSON, with the schema as structured output;
if that still does not fit, the task fails with MODEL_OUTPUT_INVALID rather than
hand the caller something else. A partial answer (a limit stopped the work) is
passed on as it is, marked partial.

Here too: the end of a mode's work (`Outcome`), and the answer assembled without a
model from what a run gathered (`notes_answer`).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from agent.failures import ModelOutputInvalidError
from agent.limits import LimitReached
from agent.llm.structured import fitting_json
from agent.running.run import TaskRun
from records.messages import Message, ModelSettings
from records.tasks import StopReason


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a mode's work: the answer and why it stopped."""

    answer: str
    stop_reason: StopReason = StopReason.FINAL_ANSWER
    detail: str = ""


def notes_answer(run: TaskRun, why: str) -> str:
    """An answer assembled without a model: what was gathered, and why it stopped."""
    if not run.transcript.notes:
        return f"No answer: {why}, before any result was gathered."
    gathered = "\n".join(f"- {note}" for note in run.transcript.notes)
    return f"Partial results only ({why}):\n{gathered}"


REFORMAT = (
    "Rewrite the answer below as one JSON value that matches the given JSON Schema, "
    "keeping its content. Reply with the JSON only."
)


async def shaped(run: TaskRun, outcome: Outcome) -> Outcome:
    """`outcome` with its answer as JSON of the agent's output schema (unchanged when the
    agent has none)."""
    agent = run.task.agent
    schema = agent.output_schema if agent is not None else None
    if schema is None or outcome.stop_reason is not StopReason.FINAL_ANSWER:
        return outcome  # a partial answer (a limit stopped the work) is passed on as it is
    answer = run.transcript.urls.restore(outcome.answer)  # judged as the caller will get it
    fitted = fitting_json(answer, schema)
    if fitted is None:
        fitted = fitting_json(
            run.transcript.urls.restore(await _reformatted(run, answer, schema)), schema
        )
    if fitted is None:
        raise ModelOutputInvalidError(
            "the final answer does not match the agent's output schema, even when asked again"
        )
    return replace(outcome, answer=fitted)


async def _reformatted(run: TaskRun, answer: str, schema: Mapping[str, Any]) -> str:
    """One model call for the answer as JSON of `schema`, within what is left of the
    step's and the task's time; ModelOutputInvalidError when none comes."""
    settings = ModelSettings(json_schema=schema, schema_name="answer")
    messages = [
        run.transcript.system(REFORMAT),
        Message("user", f"JSON Schema:\n{json.dumps(schema)}\n\nAnswer:\n{answer}"),
    ]
    seconds = run.config.step_timeout_seconds
    if run.bounds.deadline_at is not None:
        seconds = max(0.0, min(seconds, run.bounds.deadline_at - time.time()))
    try:
        async with asyncio.timeout(seconds):
            response = await run.model(
                "synthesizer", "output", messages, settings=settings, stream=False
            )
    except (TimeoutError, LimitReached) as stopped:
        why = stopped.detail if isinstance(stopped, LimitReached) else "no reply came in time"
        raise ModelOutputInvalidError(
            f"the final answer does not match the agent's output schema ({why})"
        ) from None
    return response.text
