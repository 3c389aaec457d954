"""One step of a plan, as plan-and-execute runs it (`agent.modes.plan_execute`): announced
and timed, then done by its delegate (a child task), its tool (with the plan's arguments
when they fit, else the executor model fills them in) or the executor model alone."""

from __future__ import annotations

import time

from agent import prompts
from agent.limits import MAX_TASK_CHARS, step_timeout
from agent.running.run import TaskRun
from agent.seeing.inputs import with_inputs
from records import events as ev
from records.messages import Message, ModelSettings
from records.mode_state import StepResult
from records.plan import PlanStep
from records.tools.model import ToolSpec
from tools.validation import ArgumentValidator


async def run_step(
    run: TaskRun,
    step: PlanStep,
    results: dict[str, StepResult],
    index: int,
    key: str,
    feedback: str = "",
) -> StepResult:
    if not waited(run, key):  # a step taken up again by a woken run was announced
        await run.transcript.emit(ev.StepStarted(step.id, step.description, index))
    started = time.perf_counter()
    try:
        async with step_timeout(run.config.step_timeout_seconds):
            result = await _do_step(run, step, results, key, feedback)
    except TimeoutError:
        result = StepResult(step, False, f"timed out after {run.config.step_timeout_seconds:g} s")
    await run.transcript.emit(
        ev.StepFinished(
            step.id, result.success, result.output[:2000], time.perf_counter() - started
        )
    )
    return result


async def _do_step(
    run: TaskRun, step: PlanStep, results: dict[str, StepResult], key: str, feedback: str
) -> StepResult:
    inputs = step_inputs(step, results)
    prompt = prompts.step_prompt(
        run.transcript.goal(), step.description, step.expected_output, inputs, feedback
    )
    if step.agent:  # run as that agent's child task (`agent.teams`)
        handed = {"task": prompt[:MAX_TASK_CHARS]}
        observation = await run.tools.call(step.id, f"agent.{step.agent}", handed, key=key)
        return StepResult(step, observation.ok, observation.text)
    if step.tool and waited(run, key):  # its call waited: made again as it was made
        observation = await run.tools.call(step.id, step.tool, None, key=key)
        return StepResult(step, observation.ok, observation.text)
    if step.tool:
        spec = run.tools.specs[step.tool]
        arguments = dict(step.arguments)
        if step.depends_on or feedback or not arguments_fit(step, spec):
            messages = [
                run.transcript.system(prompts.EXECUTOR_SYSTEM),
                Message(
                    "user", prompt + f"\n\nCall the tool {step.tool} with the right arguments."
                ),
            ]
            response = await run.model(
                "executor",
                step.id,
                messages,
                tools=run.tools.definitions([step.tool]),
                settings=ModelSettings(tool_choice=step.tool),
            )
            call = next((c for c in response.tool_calls if c.name == step.tool), None)
            if call is None:
                return StepResult(step, False, f"the executor did not call {step.tool}")
            try:
                arguments = call.arguments()
            except ValueError as bad:
                observation = await run.tools.call(step.id, step.tool, None, bad_arguments=str(bad))
                return StepResult(step, False, observation.text)
        observation = await run.tools.call(step.id, step.tool, arguments, key=key)
        return StepResult(step, observation.ok, observation.text)
    messages = [run.transcript.system(prompts.EXECUTOR_SYSTEM), Message("user", prompt)]
    await with_inputs(run, messages)  # the task's files and images, for the step
    response = await run.model("executor", step.id, messages)
    text = response.text.strip()
    return StepResult(step, bool(text), text or "the executor returned nothing")


def waited(run: TaskRun, key: str) -> bool:
    """Whether the step's call (journal `key`) waited when its task parked."""
    entry = run.tools.journal.get(key)
    return entry is not None and bool(entry.waiting)


def step_inputs(step: PlanStep, results: dict[str, StepResult]) -> str:
    return "\n".join(
        f"[{dep}] {results[dep].step.description}: {results[dep].output}"
        for dep in step.depends_on
        if dep in results
    )


def arguments_fit(step: PlanStep, spec: ToolSpec) -> bool:
    """Whether the plan's arguments can be used as they are."""
    return not ArgumentValidator(spec.parameters).violations(dict(step.arguments))
