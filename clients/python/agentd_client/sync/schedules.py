"""The schedule methods of the synchronous `AgentClient` (a mixin, as in the async
client: `agentd_client.scheduled.methods`)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import Any

import grpc
from google.protobuf import field_mask_pb2

from agentd.v1 import schedules_pb2 as pb
from agentd.v1 import schedules_pb2_grpc as pb_grpc


class SyncScheduleMethods:
    _channel: grpc.Channel

    def _unary(self, call: Any, request: Any, timeout: float | None) -> Any:
        raise NotImplementedError  # AgentClient's

    @cached_property
    def _schedules(self) -> pb_grpc.ScheduleServiceStub:
        return pb_grpc.ScheduleServiceStub(self._channel)

    def create_schedule(
        self, schedule: pb.Schedule, *, request_id: str = "", timeout: float | None = None
    ) -> pb.Schedule:
        """Create a schedule of your tenant, run as you (operator or admin)."""
        request = pb.CreateScheduleRequest(schedule=schedule, request_id=request_id)
        answer: pb.Schedule = self._unary(self._schedules.CreateSchedule, request, timeout)
        return answer

    def get_schedule(self, schedule_id: str, *, timeout: float | None = None) -> pb.Schedule:
        """A schedule of your tenant."""
        request = pb.GetScheduleRequest(id=schedule_id)
        answer: pb.Schedule = self._unary(self._schedules.GetSchedule, request, timeout)
        return answer

    def list_schedules(
        self,
        *,
        agent: str = "",
        state: pb.ScheduleState.ValueType = pb.SCHEDULE_STATE_UNSPECIFIED,
        timeout: float | None = None,
    ) -> pb.ListSchedulesResponse:
        """Your tenant's schedules, of one agent or in one state when given."""
        request = pb.ListSchedulesRequest(agent=agent, state=state)
        answer: pb.ListSchedulesResponse = self._unary(
            self._schedules.ListSchedules, request, timeout
        )
        return answer

    def update_schedule(
        self,
        schedule: pb.Schedule,
        *,
        update_mask: Sequence[str] = (),
        etag: str = "",
        timeout: float | None = None,
    ) -> pb.Schedule:
        """Change the fields `update_mask` names (all when empty); ETAG_MISMATCH when
        `etag` is stale."""
        request = pb.UpdateScheduleRequest(
            schedule=schedule,
            update_mask=field_mask_pb2.FieldMask(paths=list(update_mask)),
            etag=etag,
        )
        answer: pb.Schedule = self._unary(self._schedules.UpdateSchedule, request, timeout)
        return answer

    def pause_schedule(
        self, schedule_id: str, *, etag: str = "", timeout: float | None = None
    ) -> pb.Schedule:
        """Pause a schedule: no run starts until it is resumed."""
        request = pb.PauseScheduleRequest(id=schedule_id, etag=etag)
        answer: pb.Schedule = self._unary(self._schedules.PauseSchedule, request, timeout)
        return answer

    def resume_schedule(
        self, schedule_id: str, *, etag: str = "", timeout: float | None = None
    ) -> pb.Schedule:
        """Resume a schedule from now (due times passed while paused do not run)."""
        request = pb.ResumeScheduleRequest(id=schedule_id, etag=etag)
        answer: pb.Schedule = self._unary(self._schedules.ResumeSchedule, request, timeout)
        return answer

    def delete_schedule(
        self, schedule_id: str, *, etag: str = "", timeout: float | None = None
    ) -> pb.DeleteScheduleResponse:
        """Delete a schedule and its runs."""
        request = pb.DeleteScheduleRequest(id=schedule_id, etag=etag)
        answer: pb.DeleteScheduleResponse = self._unary(
            self._schedules.DeleteSchedule, request, timeout
        )
        return answer

    def trigger_schedule(
        self, schedule_id: str, *, request_id: str = "", timeout: float | None = None
    ) -> pb.ScheduleRun:
        """Run a schedule now, once per `request_id`."""
        request = pb.TriggerScheduleRequest(id=schedule_id, request_id=request_id)
        answer: pb.ScheduleRun = self._unary(self._schedules.TriggerSchedule, request, timeout)
        return answer

    def list_schedule_runs(
        self, schedule_id: str, *, page_size: int = 0, timeout: float | None = None
    ) -> pb.ListScheduleRunsResponse:
        """A schedule's newest runs first, each with its task and the task's status."""
        request = pb.ListScheduleRunsRequest(schedule_id=schedule_id, page_size=page_size)
        answer: pb.ListScheduleRunsResponse = self._unary(
            self._schedules.ListScheduleRuns, request, timeout
        )
        return answer
