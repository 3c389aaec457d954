"""What the world outside is told of: a task's status changes and the steps of what it
waits for a person to do (the inbox's history, the webhooks' inbox events).

An `ActionStep` is one step in the life of a wait for a person (`records.waits`):
opened, reminded, escalated to other roles, answered by someone, timed out. It carries
the wait as it stands after the step (its roles and deadline from then on).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime

from records.waits import Wait

DEADLINE_ACTOR = "deadline"
"""The actor of the steps a deadline takes (reminded, escalated, timed out)."""


class ActionStepKind(enum.Enum):
    OPENED = "opened"
    REMINDED = "reminded"
    ESCALATED = "escalated"
    ANSWERED = "answered"
    TIMED_OUT = "timed_out"


@dataclass(frozen=True, slots=True)
class ActionStep:
    """One step of one wait for a person."""

    kind: ActionStepKind
    wait: Wait
    """The wait after the step (its roles and deadline from now on)."""
    time: datetime
    actor: str = ""
    """ANSWERED: who answered; the deadline's steps: `DEADLINE_ACTOR`."""
    outcome: str = ""
    """ANSWERED: approved, rejected, edited, answered, resumed; TIMED_OUT: denied,
    approved, failed, cancelled; ESCALATED: escalated."""
