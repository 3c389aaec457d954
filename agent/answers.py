"""Holding a final answer to its agent's output schema.

An agent with an `output_schema` promises its callers JSON of that shape. A final
answer that is not (code fences and surrounding prose tolerated) gets one more
model call asking for exactly that JSON, with the schema as structured output;
if that still does not fit, the task fails with MODEL_OUTPUT_INVALID rather than
hand the caller something else. A partial answer (a limit stopped the work) is
passed on as it is, marked partial.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from jsonschema import Draft202012Validator

from agent.failures import ModelOutputInvalidError
from agent.llm.base import Message, ModelResponse, ModelSettings
from agent.llm.structured import json_reply
from agent.modes import Outcome
from agent.run import TaskRun
from agent.tasks import StopReason

REFORMAT = (
    "Rewrite the answer below as one JSON value that matches the given JSON Schema, "
    "keeping its content. Reply with the JSON only."
)


def _fits(text: str, schema: Mapping[str, Any]) -> str | None:
    """The answer as canonical JSON when it matches `schema`, else None."""
    try:
        value = json_reply(ModelResponse(text=text))
    except ValueError:
        return None
    if next(iter(Draft202012Validator(schema).iter_errors(value)), None) is not None:
        return None
    return json.dumps(value, ensure_ascii=False)


async def shaped(run: TaskRun, outcome: Outcome) -> Outcome:
    """`outcome` with its answer as JSON of the agent's output schema (unchanged when the
    agent has none)."""
    agent = run.task.agent
    schema = agent.output_schema if agent is not None else None
    if schema is None or outcome.stop_reason is not StopReason.FINAL_ANSWER:
        return outcome  # a partial answer (a limit stopped the work) is passed on as it is
    fitted = _fits(outcome.answer, schema)
    if fitted is None:
        settings = ModelSettings(json_schema=schema, schema_name="answer")
        messages = [
            run.system(REFORMAT),
            Message("user", f"JSON Schema:\n{json.dumps(schema)}\n\nAnswer:\n{outcome.answer}"),
        ]
        try:
            async with asyncio.timeout(run.config.step_timeout_seconds):
                response = await run.model("synthesizer", "output", messages, settings=settings)
        except TimeoutError:
            raise ModelOutputInvalidError(
                "the final answer does not match the agent's output schema, and no "
                "reformatted one came in time"
            ) from None
        fitted = _fits(response.text, schema)
    if fitted is None:
        raise ModelOutputInvalidError(
            "the final answer does not match the agent's output schema, even when asked again"
        )
    return replace(outcome, answer=fitted)
