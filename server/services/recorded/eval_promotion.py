"""The evaluation runs as promotion asks them (`agent.definitions.promotion`): the run
named, or the latest of that version that passed its gate, from the evaluation store."""

from __future__ import annotations

from dataclasses import dataclass

from agent.definitions.promotion import RunOutcome, require_passed
from core.errors import EvalRunNotFoundError
from records.evals.model import EvalRun, EvalRunState
from stores.evals.base import EvalStore


@dataclass(frozen=True, slots=True)
class StoredEvalRuns:
    """`PassedEvalRuns` over the evaluation store every replica shares."""

    store: EvalStore

    async def passed(self, tenant: str, agent_id: str, version: int, eval_run_id: str) -> str:
        if eval_run_id:
            run = await self.store.get(tenant, eval_run_id)
            if run is None:
                raise EvalRunNotFoundError(eval_run_id)
        else:
            run = await self.store.latest_passed(tenant, agent_id, version)
        return require_passed(agent_id, version, None if run is None else _outcome(run))


def _outcome(run: EvalRun) -> RunOutcome:
    return RunOutcome(
        run.eval_run_id,
        run.agent,
        run.state is EvalRunState.FINISHED,
        run.gate_passed,
        run.gate_failures,
    )
