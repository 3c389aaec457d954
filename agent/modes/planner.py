"""The planner: a validated JSON plan, with one repair attempt, never a canned default."""

from __future__ import annotations

from agent import prompts
from agent.limits import LimitReached
from agent.llm.structured import json_reply
from agent.running.run import TaskRun
from agent.seeing import inputs
from core.errors import PlanInvalidError
from records.messages import Message, ModelSettings
from records.plan import MAX_PLAN_STEPS, PLAN_JSON_SCHEMA, Plan, PlanProblems, parse_plan
from records.tasks import StopReason

SETTINGS = ModelSettings(json_schema=PLAN_JSON_SCHEMA, schema_name="plan")


async def make_plan(
    run: TaskRun,
    *,
    step_id: str = "plan",
    revision: int = 1,
    replan: str = "",
    done: frozenset[str] = frozenset(),
) -> Plan:
    """Ask the planner; validate; on problems ask once more with them listed.

    Raises PlanInvalidError when the second answer is not valid either, and
    LimitReached(PLAN_TOO_LARGE) when it is valid but has too many steps.
    """
    messages = run.transcript.opening(
        prompts.planner_system(list(run.tools.specs.values()), MAX_PLAN_STEPS),
        prompts.task_prompt(run.transcript.goal(), run.task.context),
    )
    await inputs.with_inputs(run, messages)  # the planner sees the task's files and images
    if replan:
        messages.append(Message("user", replan))
    problems: list[str] = []
    too_large = False
    for attempt in (1, 2):
        response = await run.model("planner", step_id, messages, settings=SETTINGS, stream=False)
        try:
            return parse_plan(json_reply(response), run.tools.specs, revision=revision, done=done)
        except PlanProblems as found:
            problems, too_large = found.problems, found.too_large
        except ValueError as bad:
            problems, too_large = [str(bad)], False
        if attempt == 1:
            messages.append(Message("assistant", response.text))
            messages.append(Message("user", prompts.plan_repair(problems)))
    if too_large:
        raise LimitReached(StopReason.PLAN_TOO_LARGE, problems[0])
    raise PlanInvalidError(problems)
