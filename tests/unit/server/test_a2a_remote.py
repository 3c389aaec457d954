"""A call of a remote A2A agent against a scripted SDK client: a stream that drops is
resubscribed (not sent again), a retried send keeps the child's id as `message_id`, a
protocol error is final, and cancelling cancels the remote task."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

import grpc
import pytest
from a2a.client import A2AClientError
from a2a.types import a2a_pb2
from a2a.utils.errors import TaskNotFoundError

from agent.failures import RemoteAgentError, WaitExpiredError
from agent.parked import Parked, Waiting
from records.agents.remote_keys import RemoteDelegate
from records.mode_state import RemoteState
from records.tasks import TokenUsage
from records.waits import WaitKind, WaitState
from server.a2a import remote_waits
from server.a2a.remote import RemoteCall

REMOTE = RemoteDelegate("far", "127.0.0.1:1", "helper")


def dropped(code: grpc.StatusCode = grpc.StatusCode.UNAVAILABLE) -> A2AClientError:
    cause = grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(), "gone", "")
    error = A2AClientError(f"gRPC Error {code.name}: gone")
    error.__cause__ = cause
    return error


def working() -> a2a_pb2.StreamResponse:
    task = a2a_pb2.Task(id="r-1", status=a2a_pb2.TaskStatus(state=a2a_pb2.TASK_STATE_WORKING))
    return a2a_pb2.StreamResponse(task=task)


def completed() -> a2a_pb2.StreamResponse:
    status = a2a_pb2.TaskStatus(state=a2a_pb2.TASK_STATE_COMPLETED)
    update = a2a_pb2.TaskStatusUpdateEvent(task_id="r-1", status=status)
    return a2a_pb2.StreamResponse(status_update=update)


class Client:
    """The SDK client's methods a call uses, each stream a script of responses/errors."""

    def __init__(self, sends: list[list[Any]], subscribes: list[list[Any]]) -> None:
        self.sends, self.subscribes = sends, subscribes
        self.calls: list[tuple[str, str]] = []
        self.hold = asyncio.Event()
        self.holding = asyncio.Event()

    async def _play(self, script: list[Any]) -> AsyncIterator[a2a_pb2.StreamResponse]:
        for item in script:
            if isinstance(item, Exception):
                raise item
            if item == "hold":
                self.holding.set()
                await self.hold.wait()
                continue
            yield item

    def send_message(self, request: Any, context: Any) -> AsyncIterator[a2a_pb2.StreamResponse]:
        self.calls.append(("send", request.message.message_id))
        return self._play(self.sends.pop(0))

    def subscribe(self, request: Any, context: Any) -> AsyncIterator[a2a_pb2.StreamResponse]:
        self.calls.append(("subscribe", request.id))
        return self._play(self.subscribes.pop(0))

    async def get_task(self, request: Any, context: Any) -> a2a_pb2.Task:
        self.calls.append(("get", request.id))
        task = a2a_pb2.Task(id=request.id)
        task.status.state = a2a_pb2.TASK_STATE_COMPLETED
        task.artifacts.add(artifact_id="answer").parts.add(text="42")
        task.metadata.update({"agentd": {"prompt_tokens": 7, "completion_tokens": 3}})
        return task

    async def cancel_task(self, request: Any, context: Any) -> a2a_pb2.Task:
        self.calls.append(("cancel", request.id))
        return a2a_pb2.Task(id=request.id)


def wait(slot: str, state: WaitState = WaitState.OPEN, answer: Any = None) -> SimpleNamespace:
    return SimpleNamespace(slot=slot, state=state, answer=answer, changes=0)


class People:
    """The child's waits as a call of a remote agent uses them: opened, asked, settled."""

    def __init__(self) -> None:
        self.opened: list[tuple[WaitKind, str]] = []
        self.settled: list[str] = []
        self.asked: list[str] = []
        self.answers: dict[str, str] = {}
        self.waits: dict[str, SimpleNamespace] = {}
        self.taken_in: list[str] = []

    async def open(self, kind: WaitKind, slot: str, **_: Any) -> tuple[Any, bool]:
        self.opened.append((kind, slot))
        if slot in self.waits:
            return self.waits[slot], False
        self.waits[slot] = wait(slot)
        return self.waits[slot], True

    async def get(self, task_id: str, slot: str) -> Any:
        return self.waits.get(slot)

    async def taken(self, found: Any) -> None:
        self.taken_in.append(found.slot)

    async def settle(self, kind: WaitKind, slot: str, answer: Any) -> None:
        self.settled.append(slot)

    async def question(self, request_id: str, question: str) -> tuple[str, str] | None:
        self.asked.append(question)
        if request_id not in self.answers:
            raise Parked([Waiting(WaitKind.QUESTION, request_id, True)])
        return self.answers[request_id], "alice"


@pytest.fixture(autouse=True)
def _people(monkeypatch: pytest.MonkeyPatch) -> None:
    """The child's waits are the fake run's `People` (a real run's are its wait store's)."""
    monkeypatch.setattr(remote_waits, "PersonWaits", lambda run: run.tools.people)


class State:
    def __init__(self, waits: Any, saved: Any) -> None:
        self.waits = waits
        self.pending: Any = None
        self._saved = saved

    def resume_state(self) -> Any:
        return self._saved


class Transcript:
    def __init__(self) -> None:
        self.events: list[Any] = []

    async def emit(self, payload: Any) -> None:
        self.events.append(payload)


class Run:
    def __init__(self, saved: Any = None) -> None:
        self.task = SimpleNamespace(task_id="task_child", goal="6*7?", usage=TokenUsage())
        self.transcript = Transcript()
        self.events = self.transcript.events
        self.tools = SimpleNamespace(people=People())
        # The wait store's `get`, as the fake keeps them.
        self.state = State(self.tools.people, saved)
        self.handing_over = False
        self.checkpoints: list[Any] = []

    async def checkpoint(self, state: Any = None) -> None:
        self.checkpoints.append(state)


def call(client: Client, run: Run) -> RemoteCall:
    return RemoteCall(client, None, None, REMOTE, run, 0.001)  # type: ignore[arg-type]


async def test_a_dropped_stream_is_resubscribed_and_the_answer_and_usage_kept() -> None:
    client = Client([[working(), dropped()]], [[completed()]])
    run = Run()
    outcome = await call(client, run).run()
    assert outcome.answer == "42"
    assert client.calls == [("send", "task_child"), ("subscribe", "r-1"), ("get", "r-1")]
    assert run.task.usage == TokenUsage(prompt_tokens=7, completion_tokens=3)
    assert [e.model for e in run.events] == ["a2a:far"]


async def test_a_send_dropped_before_any_task_is_sent_again_with_the_same_message_id() -> None:
    client = Client([[dropped()], [working(), completed()]], [])
    outcome = await call(client, Run()).run()
    assert outcome.answer == "42"
    assert client.calls == [("send", "task_child"), ("send", "task_child"), ("get", "r-1")]


async def test_a_protocol_error_or_a_refusal_is_final() -> None:
    client = Client([[TaskNotFoundError("no")], [dropped(grpc.StatusCode.NOT_FOUND)]], [])
    for _ in range(2):
        with pytest.raises(RemoteAgentError):
            await call(client, Run()).run()
    assert client.calls == [("send", "task_child")] * 2


async def test_drops_in_a_row_are_bounded() -> None:
    client = Client([[working(), dropped()]], [[dropped()]] * 10)
    with pytest.raises(RemoteAgentError, match="gave up after 5 attempts"):
        await call(client, Run()).run()
    assert len(client.calls) == 5


async def test_cancelling_the_call_cancels_the_remote_task() -> None:
    client = Client([[working(), "hold"]], [])
    running = asyncio.create_task(call(client, Run()).run())
    await asyncio.wait_for(client.holding.wait(), 5)  # the remote task is known and running
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    assert client.calls == [("send", "task_child"), ("cancel", "r-1")]


async def test_a_remote_task_that_works_past_the_follow_window_parks_the_child() -> None:
    client = Client([[working(), "hold"]], [])
    run = Run()
    with pytest.raises(Parked) as parked:
        await call(client, run).run(follow_seconds=0.05)
    assert [(w.kind, w.slot, w.person) for w in parked.value.waits] == [
        (WaitKind.REMOTE, "remote:r-1:0", False)
    ]
    assert run.state.pending == RemoteState("r-1", 0)  # what the woken child follows
    assert ("cancel", "r-1") not in client.calls  # parked, not cancelled


async def test_a_woken_child_follows_its_remote_task_again_and_answers() -> None:
    client = Client([], [[completed()]])
    run = Run(saved=RemoteState("r-1", 0))
    outcome = await call(client, run).run()
    assert outcome.answer == "42"
    assert client.calls == [("subscribe", "r-1"), ("get", "r-1")]  # never sent again
    assert run.tools.people.settled == ["remote:r-1:0"]


class AskingClient(Client):
    """A remote task that asks a question once, then completes."""

    def __init__(self) -> None:
        super().__init__([[working()]], [[asked()], [completed()]])
        self.sent: list[a2a_pb2.Message] = []
        self.answered = False

    def send_message(self, request: Any, context: Any) -> AsyncIterator[a2a_pb2.StreamResponse]:
        self.sent.append(request.message)
        if request.message.task_id:
            self.answered = True
            return self._play([completed()])
        return super().send_message(request, context)

    async def get_task(self, request: Any, context: Any) -> a2a_pb2.Task:
        if self.answered:
            return await super().get_task(request, context)
        task = a2a_pb2.Task(id=request.id)
        task.status.state = a2a_pb2.TASK_STATE_INPUT_REQUIRED
        task.status.message.parts.add(text="Which quarter?")
        return task


def asked() -> a2a_pb2.StreamResponse:
    status = a2a_pb2.TaskStatus(state=a2a_pb2.TASK_STATE_INPUT_REQUIRED)
    update = a2a_pb2.TaskStatusUpdateEvent(task_id="r-1", status=status)
    return a2a_pb2.StreamResponse(status_update=update)


async def test_a_remote_question_is_the_childs_and_its_answer_goes_on_to_the_remote() -> None:
    client = AskingClient()
    client.sends = [[working(), asked()]]
    run = Run()
    with pytest.raises(Parked) as parked:
        await call(client, run).run()
    slot = parked.value.waits[0].slot
    assert slot == "question:remote:r-1:0"
    assert run.tools.people.asked == ["far asks: Which quarter?"]
    assert run.state.pending == RemoteState("r-1", 0, phase=1)  # its first phase is over

    woken = Run(saved=run.state.pending)  # the person answered: the child is woken
    woken.tools.people.answers[slot] = "Q3"
    outcome = await call(client, woken).run()
    assert outcome.answer == "42"
    answer = client.sent[-1]
    assert (answer.task_id, [p.text for p in answer.parts]) == ("r-1", ["Q3"])
    assert answer.message_id == f"task_child:{slot}"
    assert woken.checkpoints == [RemoteState("r-1", 1, phase=2)]  # the answer went on


async def test_a_phase_whose_wait_is_over_is_taken_in_and_the_next_phase_waits() -> None:
    """The remote left its working states (the wait answered), then went back to them
    before the woken child looked: it parks on a wait of its own, never on the old one."""
    client = Client([], [[working(), "hold"]])
    run = Run(saved=RemoteState("r-1", 0))
    run.tools.people.waits["remote:r-1:0"] = wait(
        "remote:r-1:0", WaitState.ANSWERED, {"state": "TASK_STATE_INPUT_REQUIRED"}
    )
    with pytest.raises(Parked) as parked:
        await call(client, run).run(follow_seconds=0.05)
    assert [w.slot for w in parked.value.waits] == ["remote:r-1:1"]
    assert run.tools.people.waits["remote:r-1:1"].state is WaitState.OPEN
    assert run.tools.people.taken_in == ["remote:r-1:0"]
    assert run.state.pending == RemoteState("r-1", 0, phase=1)


async def test_a_remote_wait_past_its_deadline_fails_the_child_and_cancels_the_remote() -> None:
    client = Client([], [])
    run = Run(saved=RemoteState("r-1", 0))
    run.tools.people.waits["remote:r-1:0"] = wait("remote:r-1:0", WaitState.EXPIRED)
    with pytest.raises(WaitExpiredError, match="r-1 at far did not end in time"):
        await call(client, run).run()
    assert client.calls == [("cancel", "r-1")]  # never followed again
    assert run.tools.people.taken_in == ["remote:r-1:0"]


async def test_a_remote_task_that_asks_for_authentication_fails_the_child_named() -> None:
    class Auth(Client):
        async def get_task(self, request: Any, context: Any) -> a2a_pb2.Task:
            task = a2a_pb2.Task(id=request.id)
            task.status.state = a2a_pb2.TASK_STATE_AUTH_REQUIRED
            return task

    status = a2a_pb2.TaskStatus(state=a2a_pb2.TASK_STATE_AUTH_REQUIRED)
    update = a2a_pb2.StreamResponse(
        status_update=a2a_pb2.TaskStatusUpdateEvent(task_id="r-1", status=status)
    )
    client = Auth([[working(), update]], [])
    with pytest.raises(RemoteAgentError, match=r"AUTH_REQUIRED"):
        await call(client, Run()).run()
