"""How the engine works on a task: one module per mode, each returning an `Outcome`."""

from __future__ import annotations

from dataclasses import dataclass

from agent.tasks import StopReason


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a mode's work: the answer and why it stopped."""

    answer: str
    stop_reason: StopReason = StopReason.FINAL_ANSWER
    detail: str = ""
