"""Which evaluation run lets a version of an agent be promoted (PromoteAgentVersion).

With the promotion gate on (AGENTD_PROMOTION_GATE), the bare id of an agent serves its
promoted version, and a version is promoted only once an evaluation run of exactly that
version (`id@version`) finished with its gate passed. The evaluation runs are kept
elsewhere (the evals store); the catalog asks them through `PassedEvalRuns`, and
`require_passed` says why a run does not do, in the words every implementation uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from core.errors import PromotionRefusedError


class PassedEvalRuns(Protocol):
    """The evaluation runs of a tenant, as promotion asks them."""

    async def passed(self, tenant: str, agent_id: str, version: int, eval_run_id: str) -> str:
        """The id of the run that lets `agent_id@version` be promoted: `eval_run_id`, or
        with "" the latest finished run of that version that passed its gate.
        PromotionRefusedError naming why otherwise (`require_passed`); EvalRunNotFoundError
        for an `eval_run_id` the tenant does not have."""
        ...


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """What promotion needs to know of an evaluation run."""

    eval_run_id: str
    agent: str
    """`id@version` as run."""
    finished: bool
    """Every case ran (the run neither runs still nor failed)."""
    gate_passed: bool
    gate_failures: tuple[str, ...] = ()
    """Each reason the gate did not hold."""


def require_passed(agent_id: str, version: int, run: RunOutcome | None) -> str:
    """`run`'s id when it lets `agent_id@version` be promoted; PromotionRefusedError
    naming why not otherwise (`run` None: no run of that version passed)."""
    reference = f"{agent_id}@{version}"
    if run is None:
        raise PromotionRefusedError(reference, "no evaluation run of that version passed its gate")
    named = f"evaluation run {run.eval_run_id!r}"
    if run.agent != reference:
        raise PromotionRefusedError(reference, f"{named} is of {run.agent}, not of {reference}")
    if not run.finished:
        raise PromotionRefusedError(reference, f"{named} has not finished")
    if not run.gate_passed:
        failures = "; ".join(run.gate_failures) or "no reason given"
        raise PromotionRefusedError(reference, f"{named} did not pass its gate: {failures}")
    return run.eval_run_id


class NoEvalRuns:
    """What a server without evaluation runs answers: no version passed."""

    async def passed(self, tenant: str, agent_id: str, version: int, eval_run_id: str) -> str:
        return require_passed(agent_id, version, None)
