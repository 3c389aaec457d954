"""A child task's wait for its remote A2A agent: followed live for a while, then parked.

A child run on a remote agent (`server.a2a.remote`) sends its text and follows the remote
task's stream for up to `FOLLOW_SECONDS` (AGENTD_A2A_REMOTE_FOLLOW_SECONDS). A remote task
that works longer parks the child (a wait of kind REMOTE, one per working phase): its
running place is free, and the waking pass (`agent.scheduling.waking`) polls the remote's
GetTask with back-off until it leaves its working states, then wakes the child, on any
replica. A remote task that asks for input or an approval (`TASK_STATE_INPUT_REQUIRED`)
makes the child ask: its question (`input_requested`) or the call to approve
(`approval_requested`) is the child's, so it waits INPUT_REQUIRED, parked, and its parent
relays it (`subtask_waiting`). The answer given to agentd (ProvideInput, or
ApproveToolCall, on the child) is sent on to the remote task under its id, and the child
follows it again. A remote task that asks for authentication (`TASK_STATE_AUTH_REQUIRED`)
fails the child with that named: agentd gives no credentials on a caller's behalf.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import TYPE_CHECKING, Any, NoReturn, Protocol

from agent.failures import WaitExpiredError
from agent.parked import Parked, Waiting
from agent.running.answers import Outcome
from agent.tool_use.people import PersonWaits
from records.mode_state import RemoteState
from records.tools.invocation import Invocation
from records.waits import WaitKind, WaitState
from tools.permissions import Decision

if TYPE_CHECKING:
    from a2a.types import a2a_pb2

    from agent.failures import RemoteAgentError
    from agent.running.run import TaskRun
    from records.agents.remote_keys import RemoteDelegate

WORKING = {"TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_UNSPECIFIED"}
"""States of a remote task that works on: a parked child waits on."""
FOLLOW_SECONDS = 10.0
"""How long a child follows its remote task's stream before it parks (and polls)."""


class RemoteCall(Protocol):
    """A child's call of its remote agent (`server.a2a.remote.RemoteCall`)."""

    run_: TaskRun
    remote: RemoteDelegate
    remote_id: str

    def fail(self, detail: str) -> RemoteAgentError: ...

    async def follow(self, answer: a2a_pb2.Message | None = None) -> None: ...

    async def get(self) -> a2a_pb2.Task: ...

    async def cancel(self) -> None: ...

    async def outcome(self, task: a2a_pb2.Task) -> Outcome: ...


async def follow(call: RemoteCall, follow_seconds: float) -> Outcome:
    """The remote agent's answer to the child's task; Parked while the remote works on
    past `follow_seconds`, or waits for a person; RemoteAgentError when it failed."""
    from a2a.types import a2a_pb2

    run = call.run_
    saved = run.state.resume_state()
    where = RemoteState(call.remote_id)
    if isinstance(saved, RemoteState):  # woken: the remote task it followed
        call.remote_id, where = saved.task_id, saved
        await _not_overdue(call, where)
    answer: a2a_pb2.Message | None = None
    try:
        while True:
            if not await _followed(call, follow_seconds, answer):
                await _park(call, where)
            answer = None
            task = await call.get()
            state = a2a_pb2.TaskState.Name(task.status.state)
            if state in WORKING:  # its stream ended, the task did not
                await _park(call, where)
            await PersonWaits(run).settle(WaitKind.REMOTE, _phase(call, where), {"state": state})
            where = replace(where, phase=where.phase + 1)
            if state == "TASK_STATE_AUTH_REQUIRED":
                raise call.fail(
                    f"its task {call.remote_id} asks for authentication (AUTH_REQUIRED), which "
                    "agentd does not give on its caller's behalf"
                )
            if state != "TASK_STATE_INPUT_REQUIRED":
                return await call.outcome(task)
            where = replace(where, task_id=call.remote_id)
            answer = await _ask(call, task, where)
            where = replace(where, asked=where.asked + 1)
            await run.checkpoint(where)  # woken later, it follows on from this answer
    except asyncio.CancelledError:
        if call.remote_id and not run.handing_over:  # cancelled: the remote task too
            await asyncio.shield(call.cancel())
        raise


async def _followed(call: RemoteCall, seconds: float, answer: a2a_pb2.Message | None) -> bool:
    """Whether the remote task reached an end state (or one that asks) within `seconds`."""
    try:
        async with asyncio.timeout(seconds):
            await call.follow(answer)
    except TimeoutError:
        return False
    return True


def _phase(call: RemoteCall, where: RemoteState) -> str:
    """The slot of the child's wait while the remote task works (in phase `where.phase`)."""
    return f"remote:{call.remote_id}:{where.phase}"


async def _park(call: RemoteCall, where: RemoteState) -> NoReturn:
    """Park the child until the remote task leaves its working states (polled). A phase
    whose wait is over already (the remote left its working states, then went back to
    them) is taken in, and the next phase waits; one whose deadline passed fails the
    child (WaitExpiredError), its remote task cancelled."""
    run = call.run_
    agent = call.remote.agent_id
    people = PersonWaits(run)
    while True:
        where = replace(where, task_id=call.remote_id)
        slot = _phase(call, where)
        wait, _ = await people.open(WaitKind.REMOTE, slot, tool_name=agent, detail=call.remote_id)
        if wait.state is WaitState.OPEN:
            run.state.pending = where
            detail = f"waiting for remote agent {agent} (its task {call.remote_id})"
            raise Parked([Waiting(WaitKind.REMOTE, slot, False, wait.changes, detail)])
        await _not_overdue(call, where)
        await people.taken(wait)
        where = replace(where, phase=where.phase + 1)


async def _not_overdue(call: RemoteCall, where: RemoteState) -> None:
    """WaitExpiredError, the remote task cancelled, if the wait of the phase the child
    is in passed its deadline."""
    run = call.run_
    assert run.state.waits is not None
    wait = await run.state.waits.get(run.task.task_id, _phase(call, where))
    if wait is None or wait.state is WaitState.OPEN or wait.answer is not None:
        return
    await PersonWaits(run).taken(wait)
    await asyncio.shield(call.cancel())
    agent = call.remote.agent_id
    raise WaitExpiredError(f"its remote task {call.remote_id} at {agent} did not end in time")


async def _ask(call: RemoteCall, task: a2a_pb2.Task, where: RemoteState) -> a2a_pb2.Message:
    """What the remote asks, asked of a person through the child (Parked until answered);
    the answer as the message that goes on to the remote task."""
    from a2a.types import a2a_pb2
    from google.protobuf import json_format

    from server.convert.a2a import data_part

    run = call.run_
    run.state.pending = where
    message = task.status.message
    text = "\n".join(p.text for p in message.parts if p.text).strip()
    data: dict[str, Any] = {}
    for part in message.parts:
        if part.WhichOneof("content") == "data":
            found = json_format.MessageToDict(part.data)
            data = found if isinstance(found, dict) else {}
    agent = call.remote.agent_id
    people = PersonWaits(run)
    if data.get("kind") == "approval" and data.get("call_id"):
        slot = f"remote:{data['call_id']}"[:200]
        tool = f"{agent}:{data.get('tool_name', '')}"[:200]
        arguments = data.get("arguments")
        asked_of = Invocation.of(tool, arguments if isinstance(arguments, dict) else {}, slot)
        reason = str(data.get("reason") or f"remote agent {agent} asks")[:500]
        asks = Decision(True, f"remote:{agent}"[:200], needs_approval=True, reason=reason)
        decided = await people.approval(asked_of, tool, asks)
        if decided is None:
            raise call.fail(f"nobody decided on the call {tool} it asked about in time")
        decision = decided[0]
        verdict = {"decision": "approve" if decision.approved else "reject"}
        verdict["comment"] = decision.comment
        parts = [data_part({"approval": verdict})]
    else:
        slot = f"question:remote:{call.remote_id}:{where.asked}"[:250]
        question = text or f"remote agent {agent} asks for input"
        answered = await people.question(slot, f"{agent} asks: {question}"[:2_000])
        if answered is None:
            raise call.fail("nobody answered its question in time")
        parts = [a2a_pb2.Part(text=answered[0])]
    return a2a_pb2.Message(
        message_id=f"{run.task.task_id}:{slot}",
        role=a2a_pb2.ROLE_USER,
        task_id=call.remote_id,
        parts=parts,
    )
