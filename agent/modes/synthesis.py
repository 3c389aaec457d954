"""The synthesizer: the final answer from what was gathered, also when a limit cut work short."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent import prompts
from agent.limits import LimitReached
from agent.running.answers import Outcome, notes_answer
from records.tasks import StopReason

if TYPE_CHECKING:  # agent.running.run -> agent.tool_use.calls -> agent.running.lifecycle -> here
    from agent.running.run import TaskRun
from agent.seeing import inputs

# Limits after which no further model call is made: the answer is assembled from the notes.
NO_MODEL_AFTER = (StopReason.TOKEN_BUDGET, StopReason.DEADLINE, StopReason.SPEND_LIMIT)


async def synthesize(run: TaskRun, results: str, *, stopped_because: str = "") -> str:
    messages = run.transcript.opening(
        prompts.SYNTHESIZER_SYSTEM,
        prompts.synthesis_prompt(run.transcript.goal(), results, stopped_because),
    )
    await inputs.with_inputs(run, messages)  # the task's files and images, for its answer
    response = await run.model("synthesizer", "synthesis", messages)
    return response.text.strip()


async def partial_outcome(run: TaskRun, limit: LimitReached) -> Outcome:
    """The best answer after a limit stopped the work, saying what is missing."""
    if limit.reason in NO_MODEL_AFTER or not run.transcript.notes:
        return Outcome(notes_answer(run, limit.detail), limit.reason, limit.detail)
    results = "\n".join(f"- {note}" for note in run.transcript.notes)
    try:
        answer = await synthesize(run, results, stopped_because=limit.detail)
    except LimitReached as second:  # the synthesis itself hit the budget
        return Outcome(notes_answer(run, second.detail), limit.reason, limit.detail)
    return Outcome(answer, limit.reason, limit.detail)
