"""ReplayTask as the evaluation runner replays recorded cases (`Replayer`): the replay
service every caller's ReplayTask goes through, its report in the runner's words."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from core.identity import CallContext
from records.evals.model import ReplayReport
from records.tasks import Task
from records.traces.replays import ReplayRequest, ReplayTools
from server.services.recorded.replays import ReplayService


@dataclass(frozen=True, slots=True)
class ServiceReplayer:
    replays: ReplayService

    async def replay(
        self, call: CallContext, task_id: str, agent: str, tools: str, labels: Mapping[str, str]
    ) -> Task:
        request = ReplayRequest(task_id, agent, ReplayTools(tools), dict(labels))
        return await self.replays.replay(request, call)

    async def report(self, task: Task) -> ReplayReport | None:
        info = task.replay
        if info is None or not info.ended:
            return None
        report = ReplayReport(
            info.source_task_id,
            info.tools.value,
            recorded_calls=info.recorded_calls,
            not_run_calls=info.not_run_calls,
            live_calls=info.live_calls,
        )
        gone = info.divergence
        if gone is None:
            return report
        return ReplayReport(
            report.source_task_id,
            report.tools,
            True,
            gone.kind.value,
            gone.index,
            gone.recorded,
            gone.replayed,
            info.recorded_calls,
            info.not_run_calls,
            info.live_calls,
        )
