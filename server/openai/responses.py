"""`/v1/responses`: a response is an agentd task (`resp_<task id>`), created, read,
streamed (and resumed from any replica with `starting_after`), cancelled, and moved on by
an answer to what it waits for; docs/openai.md says how each field maps.

Nothing is kept in the process: every answer is the task's log read through
`server.openai.view`, so that any replica answers any call the same way.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

from agent.conversations.service import Conversations
from agent.engine import Engine
from core.errors import TaskNotFoundError
from core.identity import CallContext
from records import events as ev
from records.requests import TaskRequest
from records.tasks import Task, TaskStatus
from records.tools.approvals import ApprovalDecision
from server.openai.bodies import ResponsesRequest, Turn, task_of
from server.openai.errors import invalid
from server.openai.view import Json, ResponseView, call_of_approval, ends
from server.services.tasks import TaskService


@dataclass(frozen=True, slots=True)
class Started:
    """A response a create call made or moved on: its task, where to follow its log from
    (`after`), and below which a wait was answered already (`floor`)."""

    task: Task
    after: int = 0
    floor: int = 0


class Responses:
    """The Responses calls over the engine, its tasks and conversations."""

    def __init__(self, engine: Engine, tasks: TaskService, conversations: Conversations) -> None:
        self._engine = engine
        self._tasks = tasks
        self._conversations = conversations

    # -- creating -------------------------------------------------------------------------

    async def create(self, call: CallContext, asked: ResponsesRequest) -> Started:
        """Start the task of a new response, or move the previous one on."""
        if asked.previous_task:
            previous = await self._engine.find(call.principal.tenant, asked.previous_task)
            if asked.turn.approvals:
                return await self._decide(call, previous, asked.turn)
            moved = await self._answer(call, previous, asked.turn)
            if moved is not None:
                return moved
            if not previous.conversation_id:
                problem = "has no conversation to continue (store: false, or a chat completion)"
                raise invalid("previous_response_id", problem)
            return Started(await self._start(call, asked, previous.conversation_id))
        conversation = asked.conversation
        made = False
        if not conversation and asked.store:
            title = " ".join(asked.turn.goal.split())[:100] or "OpenAI"
            own = await self._conversations.create(call.principal, title, {"openai": "true"})
            conversation, made = own.conversation_id, True
        try:
            return Started(await self._start(call, asked, conversation))
        except BaseException:
            if made:
                await self._conversations.delete(call.principal, conversation)
            raise

    async def _start(self, call: CallContext, asked: ResponsesRequest, conversation: str) -> Task:
        request = TaskRequest(
            goal=asked.turn.goal,
            context=asked.turn.context,
            agent=asked.agent,
            conversation_id=conversation,
            parts=asked.turn.parts,
        )
        return await self._engine.start(request, call)

    async def _decide(self, call: CallContext, task: Task, turn: Turn) -> Started:
        """The `mcp_approval_response` items, each deciding a call the task waits on."""
        floor = task.last_sequence
        for index, approval in enumerate(turn.approvals):
            call_id = call_of_approval(approval.request_id)
            if not call_id:
                param = f"input[{index}].approval_request_id"
                raise invalid(param, "is not the id of an mcp_approval_request of agentd's")
            decision = ApprovalDecision(approval.approve, call.principal.id, approval.reason)
            await self._engine.approve(call, task.task_id, call_id, decision)
        return Started(task, floor, floor)

    async def _answer(self, call: CallContext, task: Task, turn: Turn) -> Started | None:
        """A message to a response waiting for the answer to its agent's question is the
        answer; None when the response waits for none."""
        if task.status is not TaskStatus.INPUT_REQUIRED:
            return None
        asked = _question_in(await self._tasks.log(task))
        if asked is None:
            return None
        floor = task.last_sequence
        await self._engine.provide_input(call, task.task_id, asked.request_id, turn.goal)
        return Started(task, floor, floor)

    # -- reading --------------------------------------------------------------------------

    async def find(self, call: CallContext, response_id: str) -> Task:
        task_id = task_of(response_id)
        if not task_id:
            raise TaskNotFoundError(response_id)
        return await self._engine.find(call.principal.tenant, task_id)

    async def now(self, task: Task) -> Json:
        """The response as its log stands."""
        view = ResponseView(task)
        try:
            log = await self._tasks.log(task)
        except TaskNotFoundError:  # gone from the live store: the history's record
            return view.recorded()
        for event in log:
            view.step(event)
        return view.response()

    async def settled(self, started: Started) -> Json:
        """The response once it ends or waits for the caller."""
        view = ResponseView(started.task)
        async for _ in self.events(view, started):
            pass
        return view.response()

    async def events(
        self, view: ResponseView, started: Started, starting_after: int = -1
    ) -> AsyncIterator[Json]:
        """The Responses events of the task's log after `started.after` (and after the
        sequence number `starting_after`), until it ends or waits for the caller. The log
        is read from its start, so that every item and number is as it first was."""
        task = started.task
        reopened = started.after == 0  # a stream of a response moved on opens it again
        async for event in self._tasks.resumed(task.tenant, task.task_id, 0):
            if not reopened and event.sequence > started.after:
                reopened = True
                created = view.reopened(started.after)
                if created["sequence_number"] > starting_after:
                    yield created
            for item in view.step(event):
                if event.sequence > started.after and item["sequence_number"] > starting_after:
                    yield item
            if event.sequence > started.after and ends(event, started.floor):
                return

    async def cancel(self, call: CallContext, task: Task) -> Json:
        detail = f"cancelled by {call.principal.id} (OpenAI Responses)"
        return await self.now(await self._engine.cancel(task.tenant, task.task_id, detail))


def _question_in(log: list[ev.TaskEvent]) -> ev.InputRequested | None:
    """The question a waiting task still waits to have answered, if any."""
    asked: dict[str, ev.InputRequested] = {}
    for event in log:
        if isinstance(event.payload, ev.InputRequested):
            asked[event.payload.request_id] = event.payload
        elif isinstance(event.payload, ev.InputProvided | ev.DeadlinePassed):
            asked.pop(event.payload.request_id, None)
    return next(iter(asked.values()), None)


def input_items(task: Task) -> Json:
    """`GET /v1/responses/{id}/input_items`: the task, as the user message it was given."""
    item = {
        "id": f"msg_{task.task_id}_input",
        "type": "message",
        "role": "user",
        "status": "completed",
        "content": [{"type": "input_text", "text": task.goal}],
    }
    ends = {"first_id": item["id"], "last_id": item["id"], "has_more": False}
    return {"object": "list", "data": [item], **ends}
