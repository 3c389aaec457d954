"""CreateDataset, GetDataset, ListDatasets, DeleteDataset. Thin: context, conversion, one
call into `server.services.recorded.evals`."""

from __future__ import annotations

from agentd.v1 import evals_pb2 as pb
from core.identity import CallContext
from server.calls import unary
from server.convert import pages
from server.convert.evals import cases as convert
from server.rpcs.common import required_id
from server.services.recorded.evals import EvalService

MAX_PAGE = 100


class DatasetRpcs:
    _evals: EvalService

    @unary
    async def CreateDataset(  # noqa: N802 - gRPC method name
        self, request: pb.CreateDatasetRequest, call: CallContext
    ) -> pb.Dataset:
        dataset = convert.dataset_from_proto(request.dataset)
        kept = await self._evals.create_dataset(call.principal, dataset)
        return convert.dataset_to_proto(kept)

    @unary
    async def GetDataset(self, request: pb.GetDatasetRequest, call: CallContext) -> pb.Dataset:  # noqa: N802
        dataset_id = required_id(request.dataset_id, "dataset_id")
        return convert.dataset_to_proto(await self._evals.get_dataset(call.principal, dataset_id))

    @unary
    async def ListDatasets(  # noqa: N802
        self, request: pb.ListDatasetsRequest, call: CallContext
    ) -> pb.ListDatasetsResponse:
        size = pages.page_size(request.page_size, maximum=MAX_PAGE)
        after = pages.time_cursor(request.page_token)
        page = await self._evals.list_datasets(call.principal, size, after)
        return pb.ListDatasetsResponse(
            datasets=[convert.dataset_to_proto(d) for d in page.items],
            next_page_token=pages.token(page.next),
        )

    @unary
    async def DeleteDataset(  # noqa: N802
        self, request: pb.DeleteDatasetRequest, call: CallContext
    ) -> pb.DeleteDatasetResponse:
        dataset_id = required_id(request.dataset_id, "dataset_id")
        await self._evals.delete_dataset(call.principal, dataset_id)
        return pb.DeleteDatasetResponse()
