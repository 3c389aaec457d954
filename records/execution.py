"""How the engine works on a task, and what a failed plan step leads to: the two choices
an agent definition and a task request both make."""

from __future__ import annotations

import enum
from typing import Literal


class ExecutionMode(enum.Enum):
    """How the engine works on a task."""

    AUTO = "auto"
    FUNCTION_CALLING = "function_calling"
    TEXT_REACT = "text_react"
    PLAN_AND_EXECUTE = "plan_and_execute"


StepPolicy = Literal["replan", "skip", "terminate"]
"""What a failed plan step leads to: a new plan, going on without it (and the steps that
depend on it), or the end of the run with the best answer so far."""
