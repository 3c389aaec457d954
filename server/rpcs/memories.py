"""The MemoryService servicer: the caller's own long-term memories. Thin: context,
conversion, one call into `agent.knowledge.memories`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from google.protobuf import timestamp_pb2

from agentd.v1 import memory_pb2 as pb
from agentd.v1 import memory_pb2_grpc as pb_grpc
from core.errors import FieldViolation, InvalidArgumentError
from core.identity import CallContext
from server.calls import unary
from server.convert import pages
from server.rpcs.common import required_id
from server.rpcs.knowledge import MAX_PAGE, KnowledgeRpcs
from server.services.memory import MemoryFeature
from server.services.recorded.traces import TraceService

if TYPE_CHECKING:  # numpy: only when memory is on
    from records.knowledge.items import Item

MAX_QUERY_CHARS = 2000
MAX_TOP_K = 50


def memory_to_proto(item: Item) -> pb.Memory:
    created = timestamp_pb2.Timestamp()
    created.FromDatetime(item.created_at)
    return pb.Memory(
        memory_id=item.item_id,
        namespace=item.namespace,
        text=item.text,
        create_time=created,
        shared=item.namespace.startswith("shared:"),
        author=item.user,
    )


class MemoryServicer(KnowledgeRpcs, pb_grpc.MemoryServiceServicer):
    def __init__(self, feature: MemoryFeature, traces: TraceService | None = None) -> None:
        self._feature = feature
        self._traces = traces
        """Tasks' durable traces: ForgetUser deletes the caller's too."""

    @unary
    async def ListMemories(  # noqa: N802 - gRPC method name
        self, request: pb.ListMemoriesRequest, call: CallContext
    ) -> pb.ListMemoriesResponse:
        memory = self._feature.require()
        size = pages.page_size(request.page_size, maximum=MAX_PAGE)
        after = pages.key_cursor(request.page_token)
        principal = call.principal
        page = await memory.list_memories(
            principal.tenant,
            principal.id,
            request.namespace,
            size=size,
            after=after,
            roles=principal.roles,
        )
        return pb.ListMemoriesResponse(
            memories=[memory_to_proto(i) for i in page.items],
            next_page_token=pages.token(page.next),
        )

    @unary
    async def SearchMemories(  # noqa: N802
        self, request: pb.SearchMemoriesRequest, call: CallContext
    ) -> pb.SearchMemoriesResponse:
        memory = self._feature.require()
        problems = []
        if not request.query.strip():
            problems.append(FieldViolation("query", "is required"))
        elif len(request.query) > MAX_QUERY_CHARS:
            problems.append(FieldViolation("query", f"is longer than {MAX_QUERY_CHARS}"))
        if not 0 <= request.top_k <= MAX_TOP_K:
            problems.append(FieldViolation("top_k", f"must be 0 to {MAX_TOP_K}"))
        if problems:
            raise InvalidArgumentError(problems)
        principal = call.principal
        hits = await memory.recall(
            principal.tenant,
            principal.id,
            request.query,
            namespaces=(request.namespace,) if request.namespace else (),
            top_k=request.top_k or 5,
            roles=principal.roles,
        )
        return pb.SearchMemoriesResponse(
            hits=[pb.MemoryHit(memory=memory_to_proto(h.item), score=h.similarity) for h in hits]
        )

    @unary
    async def DeleteMemory(  # noqa: N802
        self, request: pb.DeleteMemoryRequest, call: CallContext
    ) -> pb.DeleteMemoryResponse:
        memory = self._feature.require()
        required_id(request.memory_id, "memory_id", 64)
        principal = call.principal
        await memory.forget(
            principal.tenant, principal.id, request.memory_id, roles=principal.roles
        )
        return pb.DeleteMemoryResponse()

    @unary
    async def ForgetUser(  # noqa: N802
        self, request: pb.ForgetUserRequest, call: CallContext
    ) -> pb.ForgetUserResponse:
        principal = call.principal
        if self._traces is not None:  # forgotten whether or not memory is on
            await self._traces.forget_user(principal)
        memory = self._feature.require()
        gone = await memory.forget_user(principal.tenant, principal.id)
        return pb.ForgetUserResponse(memories_deleted=gone)
