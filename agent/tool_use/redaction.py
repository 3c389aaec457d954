"""No credential leaves a task in its events: what a tool returned, what a model wrote,
and what a caller or a store said are scrubbed before they reach the task's log.

Whole events go through `redact_event`; a model's streamed text goes through one
`core.secrets.StreamRedactor` per kind and step (in `EventWriter`), so a key split
across two deltas is caught whole.
"""

from __future__ import annotations

from dataclasses import replace

from core.secrets import redact, scrub
from records import events as ev
from records.plan import Plan
from records.tools.invocation import redacted


def _redact_plan(plan: Plan) -> Plan:
    steps = tuple(
        replace(
            step,
            description=scrub(step.description),
            arguments=redact(dict(step.arguments)),
            expected_output=scrub(step.expected_output),
        )
        for step in plan.steps
    )
    return replace(plan, steps=steps)


def redact_event(payload: ev.EventPayload) -> ev.EventPayload:
    """`payload` with every credential-shaped part of its text replaced."""
    match payload:
        case ev.ToolCallFinished():
            error = payload.error
            if error is not None:
                error = replace(error, message=scrub(error.message))
            return replace(
                payload, result=redact(payload.result), text=scrub(payload.text), error=error
            )
        case ev.StepFinished():
            return replace(payload, output=scrub(payload.output))
        case ev.FinalAnswer():
            return replace(
                payload, text=scrub(payload.text), stop_detail=scrub(payload.stop_detail)
            )
        case ev.ErrorOccurred():
            return replace(payload, message=scrub(payload.message))
        case ev.StatusChanged():
            return replace(payload, detail=scrub(payload.detail))
        case ev.ToolCallStarted() | ev.ApprovalRequested():  # an invocation's: redacted once
            return replace(payload, arguments=redacted(payload.arguments))
        case ev.ApprovalDecided():
            arguments = None if payload.arguments is None else redacted(payload.arguments)
            return replace(payload, comment=scrub(payload.comment), arguments=arguments)
        case ev.InputRequested():
            return replace(payload, question=scrub(payload.question))
        case ev.InputProvided():
            return replace(payload, text=scrub(payload.text))
        case ev.ReflectionVerdict():
            return replace(payload, feedback=scrub(payload.feedback))
        case ev.PlanCreated():
            return replace(payload, plan=_redact_plan(payload.plan))
        case ev.PlanRevised():
            return replace(payload, plan=_redact_plan(payload.plan), reason=scrub(payload.reason))
        case ev.StepStarted():
            return replace(payload, description=scrub(payload.description))
        case ev.TextDelta() | ev.ReasoningDelta():
            return replace(payload, text=scrub(payload.text))
        case ev.SubtaskStarted():
            return replace(payload, task=scrub(payload.task))
        case ev.SubtaskFinished():
            return replace(payload, answer=scrub(payload.answer), error=scrub(payload.error))
        case ev.SubtaskWaiting():
            return replace(payload, detail=scrub(payload.detail))
        case ev.PanelVote() | ev.PanelDecided():
            return replace(payload, answer=scrub(payload.answer))
        case _:
            return payload
