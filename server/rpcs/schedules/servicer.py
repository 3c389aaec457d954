"""The ScheduleService servicer. Thin: context, conversion, one call into
`server.services.scheduled.service`."""

from __future__ import annotations

from agentd.v1 import schedules_pb2 as pb
from agentd.v1 import schedules_pb2_grpc as pb_grpc
from core.identity import CallContext
from server.calls import unary
from server.convert.automation import schedules as convert
from server.rpcs.common import required_id
from server.services.scheduled.service import ScheduleService

MAX_RUNS = 100


class ScheduleServicer(pb_grpc.ScheduleServiceServicer):
    def __init__(self, schedules: ScheduleService) -> None:
        self._schedules = schedules

    @unary
    async def CreateSchedule(  # noqa: N802
        self, request: pb.CreateScheduleRequest, call: CallContext
    ) -> pb.Schedule:
        draft = convert.schedule_from_proto(request.schedule)
        made = await self._schedules.create(call, draft, request.request_id)
        return convert.schedule_to_proto(made)

    @unary
    async def GetSchedule(self, request: pb.GetScheduleRequest, call: CallContext) -> pb.Schedule:  # noqa: N802
        schedule_id = required_id(request.id, "id")
        return convert.schedule_to_proto(await self._schedules.get(call.principal, schedule_id))

    @unary
    async def ListSchedules(  # noqa: N802
        self, request: pb.ListSchedulesRequest, call: CallContext
    ) -> pb.ListSchedulesResponse:
        state = convert.STATES_BY_PROTO.get(request.state)
        found = [
            schedule
            for schedule in await self._schedules.of_tenant(call.principal)
            if (not request.agent or schedule.task.agent == request.agent)
            and (state is None or schedule.state is state)
        ]
        return pb.ListSchedulesResponse(schedules=[convert.schedule_to_proto(s) for s in found])

    @unary
    async def UpdateSchedule(  # noqa: N802
        self, request: pb.UpdateScheduleRequest, call: CallContext
    ) -> pb.Schedule:
        schedule_id = required_id(request.schedule.id, "schedule.id")
        mask = list(request.update_mask.paths)
        stored = convert.schedule_to_proto(await self._schedules.get(call.principal, schedule_id))
        draft = convert.schedule_from_proto(convert.masked(stored, request.schedule, mask))
        updated = await self._schedules.update(call, draft, mask, request.etag)
        return convert.schedule_to_proto(updated)

    @unary
    async def PauseSchedule(  # noqa: N802
        self, request: pb.PauseScheduleRequest, call: CallContext
    ) -> pb.Schedule:
        schedule_id = required_id(request.id, "id")
        paused = await self._schedules.pause(call, schedule_id, request.etag)
        return convert.schedule_to_proto(paused)

    @unary
    async def ResumeSchedule(  # noqa: N802
        self, request: pb.ResumeScheduleRequest, call: CallContext
    ) -> pb.Schedule:
        schedule_id = required_id(request.id, "id")
        resumed = await self._schedules.resume(call, schedule_id, request.etag)
        return convert.schedule_to_proto(resumed)

    @unary
    async def DeleteSchedule(  # noqa: N802
        self, request: pb.DeleteScheduleRequest, call: CallContext
    ) -> pb.DeleteScheduleResponse:
        await self._schedules.delete(call, required_id(request.id, "id"), request.etag)
        return pb.DeleteScheduleResponse()

    @unary
    async def TriggerSchedule(  # noqa: N802
        self, request: pb.TriggerScheduleRequest, call: CallContext
    ) -> pb.ScheduleRun:
        schedule_id = required_id(request.id, "id")
        run = await self._schedules.trigger(call, schedule_id, request.request_id)
        return convert.run_to_proto(run)

    @unary
    async def ListScheduleRuns(  # noqa: N802
        self, request: pb.ListScheduleRunsRequest, call: CallContext
    ) -> pb.ListScheduleRunsResponse:
        schedule_id = required_id(request.schedule_id, "schedule_id")
        size = min(request.page_size, MAX_RUNS) if request.page_size > 0 else MAX_RUNS
        views = await self._schedules.runs(call.principal, schedule_id, size)
        runs = [convert.run_to_proto(view.run, view.task_status) for view in views]
        return pb.ListScheduleRunsResponse(runs=runs)
