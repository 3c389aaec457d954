"""RunEval, GetEvalRun, ListEvalRuns. Thin: context, conversion, one call into
`server.services.recorded.evals`."""

from __future__ import annotations

from agentd.v1 import evals_pb2 as pb
from core.identity import CallContext
from server.calls import unary
from server.convert import pages
from server.convert.evals import runs as convert
from server.rpcs.common import required_id
from server.services.recorded.evals import EvalService

MAX_PAGE = 100


class EvalRunRpcs:
    _evals: EvalService

    @unary
    async def RunEval(self, request: pb.RunEvalRequest, call: CallContext) -> pb.EvalRun:  # noqa: N802
        run = await self._evals.run(call, convert.request_from_proto(request))
        return convert.run_to_proto(run)

    @unary
    async def GetEvalRun(self, request: pb.GetEvalRunRequest, call: CallContext) -> pb.EvalRun:  # noqa: N802
        eval_run_id = required_id(request.eval_run_id, "eval_run_id")
        return convert.run_to_proto(await self._evals.get_run(call.principal, eval_run_id))

    @unary
    async def ListEvalRuns(  # noqa: N802
        self, request: pb.ListEvalRunsRequest, call: CallContext
    ) -> pb.ListEvalRunsResponse:
        size = pages.page_size(request.page_size, maximum=MAX_PAGE)
        after = pages.time_cursor(request.page_token)
        page = await self._evals.list_runs(call.principal, request.agent, size, after)
        return pb.ListEvalRunsResponse(
            runs=[convert.run_to_proto(r, with_results=False) for r in page.items],
            next_page_token=pages.token(page.next),
        )
