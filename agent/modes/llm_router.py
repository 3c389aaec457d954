"""Auto mode with a router model: ask it how to work on the task, then do that.

When a router model is configured (AGENTD_ROUTER_MODEL server-wide, or an agent's
`model: {router: ...}`), a task in auto mode starts with one structured call to it. It
answers one of:

- `answer`: the task needs no tools and no plan (a greeting, a simple question); its
  `answer`, in the language of the task, is the task's final answer;
- `function_calling` or `plan_and_execute`: the mode to run (`text_react` stands in for
  function calling when the model has no native tool calls);
- `delegate`: hand the task to the agent it names, one of its agent's delegates
  (`agent.teams.hand_over`: a child task whose answer is the task's);
  a name that is not a delegate, or a child that does not complete, is recorded and the
  task runs in the mode the heuristic picks.

Every decision is reported as a `route_chosen` event. A router that cannot be read
(twice), or fails, is not fatal: the heuristic (`agent.modes.router`) decides.
"""

from __future__ import annotations

import time
from typing import Any

from agent import prompts
from agent.llm.base import ModelError
from agent.llm.structured import json_reply
from agent.modes.router import choose_mode
from agent.running.answers import Outcome
from agent.running.run import TaskRun
from agent.teams.hand_over import hand_to, handed_to
from records import events as ev
from records.execution import ExecutionMode
from records.messages import Message, ModelSettings

DECISIONS = ("answer", "function_calling", "plan_and_execute", "delegate")
ROUTE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "decision": {"type": "string", "enum": list(DECISIONS)},
        "answer": {"type": "string"},
        "delegate": {"type": "string"},
        "reason": {"type": "string"},
    },
    "required": ["decision"],
}
SETTINGS = ModelSettings(json_schema=ROUTE_SCHEMA, schema_name="route")
STEP_ID = "route"


async def _ask(run: TaskRun) -> dict[str, Any] | None:
    """The router's decision, or None when it gave none that can be used."""
    messages = run.transcript.opening(
        prompts.router_system(run.delegates), prompts.task_prompt(run.task.goal, run.task.context)
    )
    for attempt in (1, 2):
        try:
            response = await run.model("router", STEP_ID, messages, settings=SETTINGS, stream=False)
        except ModelError:
            return None
        try:
            data = json_reply(response)
        except ValueError:
            data = None
        if isinstance(data, dict) and data.get("decision") in DECISIONS:
            return data
        if attempt == 1:
            messages.append(Message("assistant", response.text))
            messages.append(Message("user", prompts.ROUTER_REPAIR))
    return None


async def route(run: TaskRun) -> tuple[ExecutionMode, Outcome | None]:
    """The mode to run the task in, or the outcome when the router answered it."""
    started = time.perf_counter()
    heuristic = choose_mode(run.task.goal, run.config.tool_calling)
    handed = handed_to(run)
    if handed:  # woken while the agent it handed the task to works: not asked again
        data: dict[str, Any] | None = {"decision": "delegate", "delegate": handed}
    else:
        data = await _ask(run)
    decision = str(data.get("decision")) if data else "heuristic"
    reason = str((data or {}).get("reason", ""))[:500]
    delegate = str((data or {}).get("delegate", ""))[:200]
    answer = str((data or {}).get("answer", "")).strip()
    mode, outcome, handled = heuristic, None, True
    if decision == "answer" and answer:
        outcome = Outcome(answer)
    elif decision == "function_calling":
        tool_calling = run.config.tool_calling
        mode = ExecutionMode.FUNCTION_CALLING if tool_calling else ExecutionMode.TEXT_REACT
    elif decision == "plan_and_execute":
        mode = ExecutionMode.PLAN_AND_EXECUTE
    elif decision == "delegate":
        if delegate:
            outcome = await hand_to(run, delegate)
        handled = outcome is not None
    took = time.perf_counter() - started
    await run.transcript.emit(
        ev.RouteChosen(
            decision, mode.value if outcome is None else "", delegate, reason, handled, took
        )
    )
    return mode, outcome
