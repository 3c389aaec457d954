"""The AgentService servicer: build the call context, convert, delegate. Nothing else."""

from __future__ import annotations

from collections.abc import AsyncIterator

from agent.artifacts import TaskArtifacts
from agent.catalog import Agents
from agent.engine import Engine
from agent.events import TaskEvent
from agent.intake import delegates_of
from agent.memory.model import ConversationQuery
from agent.memory.service import Conversations
from agent.questions import ASK_USER
from agent.selection import lookup, narrow, resolve
from agent.teams.delegation import CATEGORY, team_tools
from agentd.v1 import agent_service_pb2 as pb
from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from agentd.v1 import (
    agents_pb2,
    artifacts_pb2,
    conversations_pb2,
    events_pb2,
    grants_pb2,
    tasks_pb2,
)
from audit.service import AuditLogs
from core.errors import (
    EventsExpiredError,
    FieldViolation,
    InvalidArgumentError,
    TaskNotFoundError,
)
from core.identity import CallContext
from core.names import tool_name_problem
from server import (
    convert,
    convert_agents,
    convert_artifacts,
    convert_audit,
    convert_conversations,
    convert_events,
    convert_grants,
    paging,
)
from server.calls import stream, unary
from server.heartbeats import with_heartbeats
from server.interceptors.audit import note_task
from server.task_query import task_query
from stores.history.base import TaskHistory
from stores.tasks.base import TaskStore
from tools.grant_admin import GrantAdmin
from tools.registry import ToolRegistry

MAX_ID_LENGTH = 128


def _required_id(value: str, field: str) -> str:
    if not value:
        raise InvalidArgumentError([FieldViolation(field, "is required")])
    if len(value) > MAX_ID_LENGTH:
        raise InvalidArgumentError(
            [FieldViolation(field, f"is longer than {MAX_ID_LENGTH} characters")]
        )
    return value


class AgentServicer(pb_grpc.AgentServiceServicer):
    """agentd.v1.AgentService over the engine, the tool registry and the task store."""

    def __init__(
        self,
        engine: Engine,
        registry: ToolRegistry,
        tasks: TaskStore,
        history: TaskHistory,
        audit: AuditLogs,
        grants: GrantAdmin,
        agents: Agents,
        conversations: Conversations,
        artifacts: TaskArtifacts,
        *,
        heartbeat_seconds: float = 15.0,
    ) -> None:
        self._artifacts = artifacts
        self._conversations = conversations
        self._heartbeat_seconds = heartbeat_seconds
        self._agents = agents
        self._audit = audit
        self._grants = grants
        self._engine = engine
        self._registry = registry
        self._tasks = tasks
        self._history = history

    async def _follow(
        self, tenant: str, task_id: str, events: AsyncIterator[TaskEvent]
    ) -> AsyncIterator[events_pb2.TaskEvent]:
        """The rest of a task's events as protos, with a heartbeat when the task is quiet."""
        async for event in with_heartbeats(events, self._heartbeat_seconds):
            if event is None:
                yield convert_events.heartbeat(await self._engine.find(tenant, task_id))
            else:
                yield convert_events.event_to_proto(event)

    @stream
    async def Execute(  # noqa: N802 - gRPC method name
        self, request: pb.ExecuteRequest, call: CallContext
    ) -> AsyncIterator[events_pb2.TaskEvent]:
        task = await self._engine.start(convert.task_request(request), call)
        note_task(task.task_id)
        events = self._tasks.read_events(task.tenant, task.task_id)
        ended = False
        try:
            async for message in self._follow(task.tenant, task.task_id, events):
                yield message
            ended = True
        finally:
            if request.cancel_on_disconnect and not ended:
                await self._engine.cancel_quietly(
                    task.tenant, task.task_id, "the caller disconnected"
                )

    @unary
    async def StartTask(  # noqa: N802
        self, request: pb.ExecuteRequest, call: CallContext
    ) -> tasks_pb2.Task:
        task = await self._engine.start(convert.task_request(request), call)
        note_task(task.task_id)
        return convert.task_to_proto(task)

    @unary
    async def Plan(self, request: pb.PlanRequest, call: CallContext) -> pb.PlanResponse:  # noqa: N802
        context = convert.struct_to_dict(request.context, "context")
        plan = await self._engine.plan(
            request.task, list(request.tools), context, call, request.agent
        )
        return pb.PlanResponse(plan=convert.plan_to_proto(plan))

    @unary
    async def CallTool(  # noqa: N802
        self, request: pb.CallToolRequest, call: CallContext
    ) -> pb.CallToolResponse:
        name = request.tool_name
        problem = tool_name_problem(name)
        if problem is not None:  # never looked up, audited or stored as it came
            raise InvalidArgumentError([FieldViolation("tool_name", problem)])
        arguments = convert.struct_to_dict(request.arguments)
        bypass = request.bypass_cache
        if request.idempotency_key:
            result = await self._registry.call_once(
                name, arguments, call, request.idempotency_key, bypass_cache=bypass
            )
        else:
            result = await self._registry.call(name, arguments, call, bypass_cache=bypass)
        return convert.tool_result_to_proto(result)

    @unary
    async def GetTask(self, request: pb.GetTaskRequest, call: CallContext) -> tasks_pb2.Task:  # noqa: N802
        task_id = _required_id(request.task_id, "task_id")
        note_task(task_id)
        task = await self._engine.find(call.principal.tenant, task_id)
        answer = convert.task_to_proto(task)
        summaries = await self._artifacts.summaries(task)
        answer.artifacts.extend(convert_artifacts.summaries_to_proto(summaries))
        return answer

    @unary
    async def GetArtifact(  # noqa: N802
        self, request: artifacts_pb2.GetArtifactRequest, call: CallContext
    ) -> artifacts_pb2.ArtifactContent:
        task_id = _required_id(request.task_id, "task_id")
        note_task(task_id)
        version = request.version if request.HasField("version") else None
        found = await self._artifacts.get(call.principal.tenant, task_id, request.name, version)
        return convert_artifacts.content_to_proto(found)

    @unary
    async def ListTools(  # noqa: N802
        self, request: pb.ListToolsRequest, call: CallContext
    ) -> pb.ListToolsResponse:
        listed = self._registry.listing(call, request.category, request.toolset)
        specs = [tool.spec for tool in listed]
        down = {tool.spec.name for tool in listed if tool.unavailable}
        if request.agent:
            agent = await resolve(self._agents, call.principal.tenant, request.agent)
            specs = list(narrow(agent, (), {s.name: s for s in specs}).values())
            if agent is not None and agent.ask_user and request.category in ("", "conversation"):
                specs = sorted([*specs, ASK_USER], key=lambda s: s.name)
            if request.category in ("", CATEGORY) and not request.toolset:
                delegates = await delegates_of(self._agents, call.principal.tenant, agent)
                panels = agent.panels if agent is not None else ()
                team = team_tools(delegates, panels).values()
                specs = sorted([*specs, *team], key=lambda s: s.name)
        return pb.ListToolsResponse(
            tools=[convert.tool_to_proto(s, unavailable=s.name in down) for s in specs]
        )

    @unary
    async def CancelTask(  # noqa: N802
        self, request: pb.CancelTaskRequest, call: CallContext
    ) -> tasks_pb2.Task:
        task_id = _required_id(request.task_id, "task_id")
        note_task(task_id)
        detail = request.reason or f"cancelled by {call.principal.id}"
        task = await self._engine.cancel(call.principal.tenant, task_id, detail)
        return convert.task_to_proto(task)

    @unary
    async def ListTasks(  # noqa: N802
        self, request: pb.ListTasksRequest, call: CallContext
    ) -> pb.ListTasksResponse:
        size = paging.page_size(request.page_size)
        query = task_query(request, call.principal, limit=size + 1)
        listing = await self._engine.list_tasks(query)
        page, more = listing.tasks[:size], len(listing.tasks) > size
        token = paging.encode(page[-1].created_at, page[-1].task_id) if more else ""
        if not more and listing.scanned_to is not None:  # a short page: more may follow
            token = paging.encode(*listing.scanned_to)
        return pb.ListTasksResponse(
            tasks=[convert.task_to_proto(t) for t in page], next_page_token=token
        )

    @unary
    async def ApproveToolCall(  # noqa: N802
        self, request: pb.ApproveToolCallRequest, call: CallContext
    ) -> tasks_pb2.Task:
        task_id = _required_id(request.task_id, "task_id")
        call_id = _required_id(request.call_id, "call_id")
        note_task(task_id)
        decision = convert.approval_decision(request, call.principal.id)
        task = await self._engine.approve(call, task_id, call_id, decision)
        return convert.task_to_proto(task)

    @unary
    async def ProvideInput(  # noqa: N802
        self, request: pb.ProvideInputRequest, call: CallContext
    ) -> tasks_pb2.Task:
        task_id = _required_id(request.task_id, "task_id")
        request_id = _required_id(request.request_id, "request_id")
        note_task(task_id)
        task = await self._engine.provide_input(call, task_id, request_id, request.text)
        return convert.task_to_proto(task)

    @unary
    async def ResumeTask(  # noqa: N802
        self, request: pb.ResumeTaskRequest, call: CallContext
    ) -> tasks_pb2.Task:
        task_id = _required_id(request.task_id, "task_id")
        note_task(task_id)
        task = await self._engine.resume_task(call, task_id, request.comment)
        return convert.task_to_proto(task)

    @unary
    async def ListAuditRecords(  # noqa: N802
        self, request: pb.ListAuditRecordsRequest, call: CallContext
    ) -> pb.ListAuditRecordsResponse:
        query = convert_audit.audit_query(request, call.principal.tenant)
        rows = await self._audit.page(call.principal, query)
        return convert_audit.audit_page(rows, query.limit - 1)

    @unary
    async def CreateGrant(  # noqa: N802
        self, request: pb.CreateGrantRequest, call: CallContext
    ) -> grants_pb2.Grant:
        draft = convert_grants.grant_from_proto(request.grant)
        created = await self._grants.create(call.principal, draft)
        answer = convert_grants.grant_to_proto(created.grant)
        answer.warnings.extend(warning.text for warning in created.warnings)
        return answer

    @unary
    async def RevokeGrant(  # noqa: N802
        self, request: pb.RevokeGrantRequest, call: CallContext
    ) -> grants_pb2.Grant:
        grant_id = _required_id(request.grant_id, "grant_id")
        return convert_grants.grant_to_proto(await self._grants.revoke(call.principal, grant_id))

    @unary
    async def ListGrants(  # noqa: N802
        self, request: pb.ListGrantsRequest, call: CallContext
    ) -> pb.ListGrantsResponse:
        grants = await self._grants.list(call.principal, request.include_revoked)
        return pb.ListGrantsResponse(grants=[convert_grants.grant_to_proto(g) for g in grants])

    @stream
    async def StreamTaskEvents(  # noqa: N802
        self, request: pb.StreamTaskEventsRequest, call: CallContext
    ) -> AsyncIterator[events_pb2.TaskEvent]:
        task_id = _required_id(request.task_id, "task_id")
        note_task(task_id)
        events = self._tasks.read_events(call.principal.tenant, task_id, request.after_sequence)
        try:
            first = await anext(events)
        except StopAsyncIteration:
            return
        except TaskNotFoundError:  # gone from the live store: known to the history?
            task = await self._history.get(call.principal.tenant, task_id)
            if task.last_sequence <= request.after_sequence:
                return  # the caller already has every event there was
            raise EventsExpiredError(task_id, task.last_sequence) from None
        yield convert_events.event_to_proto(first)
        async for message in self._follow(call.principal.tenant, task_id, events):
            yield message

    @unary
    async def CreateAgent(  # noqa: N802
        self, request: agents_pb2.CreateAgentRequest, call: CallContext
    ) -> agents_pb2.Agent:
        data = convert_agents.agent_data(request.agent)
        return convert_agents.agent_to_proto(await self._agents.create(call.principal, data))

    @unary
    async def UpdateAgent(  # noqa: N802
        self, request: agents_pb2.UpdateAgentRequest, call: CallContext
    ) -> agents_pb2.Agent:
        data = convert_agents.agent_data(request.agent)
        return convert_agents.agent_to_proto(await self._agents.update(call.principal, data))

    @unary
    async def GetAgent(  # noqa: N802
        self, request: agents_pb2.GetAgentRequest, call: CallContext
    ) -> agents_pb2.Agent:
        found = await lookup(self._agents, call.principal.tenant, request.agent)
        return convert_agents.agent_to_proto(found)

    @unary
    async def ListAgents(  # noqa: N802
        self, request: agents_pb2.ListAgentsRequest, call: CallContext
    ) -> agents_pb2.ListAgentsResponse:
        size = paging.page_size(request.page_size)
        after = paging.decode_key(request.page_token)
        found = await self._agents.list(call.principal.tenant, after, size + 1)
        page = found[:size]
        token = paging.encode_key(*page[-1][0]) if len(found) > size else ""
        return agents_pb2.ListAgentsResponse(
            agents=[convert_agents.agent_to_proto(v) for _, v in page], next_page_token=token
        )

    @unary
    async def DeleteAgent(  # noqa: N802
        self, request: agents_pb2.DeleteAgentRequest, call: CallContext
    ) -> agents_pb2.DeleteAgentResponse:
        await self._agents.delete(call.principal, _required_id(request.id, "id"))
        return agents_pb2.DeleteAgentResponse()

    @unary
    async def CreateConversation(  # noqa: N802
        self, request: conversations_pb2.CreateConversationRequest, call: CallContext
    ) -> conversations_pb2.Conversation:
        created = await self._conversations.create(
            call.principal, request.title, dict(request.labels)
        )
        return convert_conversations.conversation_to_proto(created)

    @unary
    async def GetConversation(  # noqa: N802
        self, request: conversations_pb2.GetConversationRequest, call: CallContext
    ) -> conversations_pb2.GetConversationResponse:
        size = paging.page_size(request.page_size)
        after = paging.decode_position(request.page_token)
        conversation, messages, more, running = await self._conversations.page(
            call.principal, request.conversation_id, after, size
        )
        return conversations_pb2.GetConversationResponse(
            conversation=convert_conversations.conversation_to_proto(conversation, running),
            messages=[convert_conversations.message_to_proto(m) for m in messages],
            next_page_token=paging.encode_position(messages[-1].index) if more else "",
        )

    @unary
    async def ListConversations(  # noqa: N802
        self, request: conversations_pb2.ListConversationsRequest, call: CallContext
    ) -> conversations_pb2.ListConversationsResponse:
        size = paging.page_size(request.page_size)
        query = ConversationQuery(
            call.principal.tenant,
            call.principal.id,
            limit=size + 1,
            after=paging.decode(request.page_token),
        )
        found = await self._conversations.list(query)
        page, more = found[:size], len(found) > size
        token = paging.encode(page[-1].created_at, page[-1].conversation_id) if more else ""
        return conversations_pb2.ListConversationsResponse(
            conversations=[convert_conversations.conversation_to_proto(c) for c in page],
            next_page_token=token,
        )

    @unary
    async def DeleteConversation(  # noqa: N802
        self, request: conversations_pb2.DeleteConversationRequest, call: CallContext
    ) -> conversations_pb2.DeleteConversationResponse:
        await self._conversations.delete(call.principal, request.conversation_id)
        return conversations_pb2.DeleteConversationResponse()
