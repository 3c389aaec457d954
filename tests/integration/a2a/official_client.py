"""The official A2A client (a2a-sdk) driving agentd: run by `python official_client.py
'<json>'` in the SDK's own virtual environment (`tests.integration.a2a.client_env`), never
imported by the tests' process. The JSON names the scenario, the binding (GRPC or
JSONRPC), where agentd is and the caller's credentials; the last line printed is the
scenario's findings as JSON, which the test asserts on."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
import httpx
from a2a.client import (
    A2ACardResolver,
    A2AClientError,
    Client,
    ClientCallContext,
    ClientConfig,
    ClientFactory,
    minimal_agent_card,
)
from a2a.types import a2a_pb2
from a2a.utils import errors as a2a_errors
from google.protobuf import json_format

Findings = dict[str, Any]


class Caller:
    """One principal's client of one agent over one binding."""

    def __init__(self, spec: dict[str, Any], token: str, agent: str, streaming: bool = True):
        self.spec = spec
        self.headers = {"authorization": f"Bearer {token}"} if token else {}
        self.http = httpx.AsyncClient(headers=self.headers, timeout=30)
        self.agent = agent
        binding = spec["binding"]
        url = spec["grpc"] if binding == "GRPC" else spec["http"]
        card = minimal_agent_card(url, [binding])
        card.capabilities.streaming = True
        card.supported_interfaces[0].tenant = agent
        card.supported_interfaces[0].protocol_version = "1.0"
        config = ClientConfig(
            streaming=streaming,
            supported_protocol_bindings=[binding],
            httpx_client=self.http,
            grpc_channel_factory=grpc.aio.insecure_channel,
        )
        self.client: Client = ClientFactory(config).create(card)

    def context(self, **extra: str) -> ClientCallContext:
        return ClientCallContext(service_parameters={**self.headers, **extra}, timeout=30)

    async def close(self) -> None:
        await self.client.close()
        await self.http.aclose()


def message(text: str, **fields: Any) -> a2a_pb2.Message:
    return a2a_pb2.Message(
        message_id=fields.pop("message_id", f"m-{abs(hash((text, id(fields))))}"),
        role=a2a_pb2.ROLE_USER,
        parts=[a2a_pb2.Part(text=text)],
        **fields,
    )


def state(task: a2a_pb2.Task) -> str:
    return a2a_pb2.TaskState.Name(task.status.state)


def answer(task: a2a_pb2.Task) -> str:
    return " ".join(p.text for a in task.artifacts for p in a.parts)


def position(metadata: Any) -> int:
    """The agentd log position an update carries."""
    return int(json_format.MessageToDict(metadata)["agentd"]["sequence"])


def describe(response: a2a_pb2.StreamResponse) -> dict[str, Any]:
    kind = response.WhichOneof("payload")
    item: dict[str, Any] = {"kind": kind}
    if kind == "task":
        item["state"] = state(response.task)
        item["id"] = response.task.id
    elif kind == "status_update":
        item["state"] = a2a_pb2.TaskState.Name(response.status_update.status.state)
        item["sequence"] = position(response.status_update.metadata)
        item["text"] = " ".join(p.text for p in response.status_update.status.message.parts)
    elif kind == "artifact_update":
        item["text"] = " ".join(p.text for p in response.artifact_update.artifact.parts)
        item["sequence"] = position(response.artifact_update.metadata)
    return item


async def error_of(call: Callable[[], Awaitable[Any]], *, text: bool = False) -> str:
    """The SDK's error type a call raises ("none" when it succeeds); with `text`, and its
    message."""
    try:
        await call()
    except (A2AClientError, a2a_errors.A2AError) as error:
        return f"{type(error).__name__}: {error}" if text else type(error).__name__
    return "none"


async def send(caller: Caller, msg: a2a_pb2.Message, **config: Any) -> a2a_pb2.Task:
    request = a2a_pb2.SendMessageRequest(
        message=msg, configuration=a2a_pb2.SendMessageConfiguration(**config)
    )
    async for response in caller.client.send_message(request, context=caller.context()):
        return response.task
    raise AssertionError("no response")


async def stream(caller: Caller, msg: a2a_pb2.Message) -> list[dict[str, Any]]:
    request = a2a_pb2.SendMessageRequest(message=msg)
    return [
        describe(r) async for r in caller.client.send_message(request, context=caller.context())
    ]


async def subscribe(caller: Caller, task_id: str, **headers: str) -> list[dict[str, Any]]:
    request = a2a_pb2.SubscribeToTaskRequest(id=task_id)
    responses = caller.client.subscribe(request, context=caller.context(**headers))
    return [describe(r) async for r in responses]


async def tour(spec: dict[str, Any]) -> Findings:
    """Send (blocking, return_immediately), stream, get, list, cancel, subscribe, errors."""
    blocking = Caller(spec, spec["token"], spec["agent"], streaming=False)
    streaming = Caller(spec, spec["token"], spec["agent"])
    found: Findings = {}
    try:
        card = await blocking.client.get_extended_agent_card(
            a2a_pb2.GetExtendedAgentCardRequest(), context=blocking.context()
        )
        found["card"] = json_format.MessageToDict(card)
        done = await send(blocking, message("What is 6*7?", message_id="tour-1"))
        found["blocking"] = {"state": state(done), "answer": answer(done), "id": done.id}
        found["context_id"] = done.context_id
        again = await send(blocking, message("What is 6*7?", message_id="tour-1"))
        found["retried_id"] = again.id
        quick = await send(
            blocking, message("slow one", message_id="tour-2"), return_immediately=True
        )
        found["immediate"] = {"state": state(quick), "id": quick.id}
        found["subscribed"] = await subscribe(streaming, quick.id)
        got = await blocking.client.get_task(
            a2a_pb2.GetTaskRequest(id=quick.id), context=blocking.context()
        )
        found["got"] = {"state": state(got), "answer": answer(got)}
        found["streamed"] = await stream(streaming, message("What is 6*7?", message_id="tour-3"))
        listed = await blocking.client.list_tasks(
            a2a_pb2.ListTasksRequest(), context=blocking.context()
        )
        found["listed"] = sorted(t.id for t in listed.tasks)
        found["replayed"] = await subscribe(streaming, done.id, **{"agentd-resume-after": "0"})
        found["errors"] = {
            "get_unknown": await error_of(
                lambda: blocking.client.get_task(
                    a2a_pb2.GetTaskRequest(id="task_000000000000000000000000"),
                    context=blocking.context(),
                )
            ),
            "cancel_finished": await error_of(
                lambda: blocking.client.cancel_task(
                    a2a_pb2.CancelTaskRequest(id=done.id), context=blocking.context()
                )
            ),
            "subscribe_finished": await error_of(lambda: subscribe(streaming, done.id)),
            "no_text": await error_of(
                lambda: send(
                    blocking,
                    a2a_pb2.Message(
                        message_id="tour-4", role=a2a_pb2.ROLE_USER, parts=[a2a_pb2.Part(url="x")]
                    ),
                )
            ),
        }
        found["push"] = await push_configs(blocking, done.id)
        slow = await send(
            blocking, message("slow two", message_id="tour-5"), return_immediately=True
        )
        cancelled = await blocking.client.cancel_task(
            a2a_pb2.CancelTaskRequest(id=slow.id), context=blocking.context()
        )
        found["cancelled"] = state(cancelled)
    finally:
        await blocking.close()
        await streaming.close()
    return found


async def push_configs(caller: Caller, task_id: str) -> Findings:
    """A task's push-notification configs: create, get, list, delete; a refused URL."""
    client, context = caller.client, caller.context()
    made = await client.create_task_push_notification_config(
        a2a_pb2.TaskPushNotificationConfig(
            task_id=task_id, id="hook", url="http://127.0.0.1:9/hook", token="t"
        ),
        context=context,
    )
    got = await client.get_task_push_notification_config(
        a2a_pb2.GetTaskPushNotificationConfigRequest(task_id=task_id, id="hook"),
        context=context,
    )
    listed = await client.list_task_push_notification_configs(
        a2a_pb2.ListTaskPushNotificationConfigsRequest(task_id=task_id), context=context
    )
    await client.delete_task_push_notification_config(
        a2a_pb2.DeleteTaskPushNotificationConfigRequest(task_id=task_id, id="hook"),
        context=context,
    )
    after = await client.list_task_push_notification_configs(
        a2a_pb2.ListTaskPushNotificationConfigsRequest(task_id=task_id), context=context
    )
    refused = await error_of(
        lambda: client.create_task_push_notification_config(
            a2a_pb2.TaskPushNotificationConfig(task_id=task_id, url="http://169.254.169.254/"),
            context=context,
        )
    )
    return {
        "made": made.id,
        "got": got.url,
        "listed": [c.id for c in listed.configs],
        "after_delete": [c.id for c in after.configs],
        "refused": refused,
    }


async def multi_turn(spec: dict[str, Any]) -> Findings:
    """A task that asks a question (INPUT_REQUIRED) and goes on with the answer."""
    caller = Caller(spec, spec["token"], spec["agent"], streaming=False)
    try:
        asked = await send(caller, message("What does my account owe?", message_id="mt-1"))
        question = " ".join(p.text for p in asked.status.message.parts if p.text)
        done = await send(caller, message("account 7", message_id="mt-2", task_id=asked.id))
        return {
            "asked": state(asked),
            "question": question,
            "done": state(done),
            "answer": answer(done),
            "same_task": done.id == asked.id,
        }
    finally:
        await caller.close()


async def approval(spec: dict[str, Any]) -> Findings:
    """A tool call waiting for approval: the owner may not decide it; an approver does."""
    owner = Caller(spec, spec["token"], spec["agent"], streaming=False)
    approver = Caller(spec, spec["approver_token"], spec["agent"], streaming=False)
    stranger = Caller(spec, spec["stranger_token"], spec["agent"], streaming=False)
    try:
        waiting = await send(owner, message("what is 6*7?", message_id="ap-1"))
        data = [
            json_format.MessageToDict(p.data)
            for p in waiting.status.message.parts
            if p.HasField("data")
        ]
        refused = await error_of(
            lambda: send(owner, message("approve", message_id="ap-2", task_id=waiting.id)),
            text=True,
        )
        hidden = await error_of(
            lambda: stranger.client.get_task(
                a2a_pb2.GetTaskRequest(id=waiting.id), context=stranger.context()
            )
        )
        stranger_card = await stranger.client.get_extended_agent_card(
            a2a_pb2.GetExtendedAgentCardRequest(), context=stranger.context()
        )
        done = await send(approver, message("approve", message_id="ap-3", task_id=waiting.id))
        return {
            "waiting": state(waiting),
            "asked": data,
            "owner_decides": refused,
            "stranger_get": hidden,
            "stranger_skills": [s.id for s in stranger_card.skills],
            "done": state(done),
            "answer": answer(done),
        }
    finally:
        for caller in (owner, approver, stranger):
            await caller.close()


async def resume(spec: dict[str, Any]) -> Findings:
    """Stream a task from replica A; when A dies (the test kills it once this prints
    READY), subscribe on replica B after the last position received."""
    first = Caller(spec, spec["token"], spec["agent"])
    second = Caller({**spec, "grpc": spec["grpc_b"]}, spec["token"], spec["agent"])
    head: list[dict[str, Any]] = []
    task_id, dropped = "", "none"
    try:
        request = a2a_pb2.SendMessageRequest(message=message("a long task", message_id="rs-1"))
        try:
            async for response in first.client.send_message(request, context=first.context()):
                head.append(describe(response))
                task_id = task_id or response.task.id
                if head[-1].get("state") == "TASK_STATE_WORKING":
                    print("READY", flush=True)
        except (A2AClientError, a2a_errors.A2AError) as error:
            dropped = type(error).__name__
        last = max(item.get("sequence", 0) for item in head)
        rest = await subscribe(second, task_id, **{"agentd-resume-after": str(last)})
        got = await second.client.get_task(
            a2a_pb2.GetTaskRequest(id=task_id), context=second.context()
        )
        return {
            "head": head,
            "dropped": dropped,
            "rest": rest,
            "state": state(got),
            "answer": answer(got),
        }
    finally:
        await first.close()
        await second.close()


async def public_card(spec: dict[str, Any]) -> Findings:
    """The card at /.well-known/agent-card.json, read with the SDK's resolver."""
    async with httpx.AsyncClient(timeout=30) as http:
        card = await A2ACardResolver(http, spec["http"]).get_agent_card()
    return {"card": json_format.MessageToDict(card)}


async def file_part(spec: dict[str, Any]) -> Findings:
    """A message with a file part of the bytes in `spec["file"]` (its type, its name), sent
    blocking: the task it started, and how it ended."""
    caller = Caller(spec, spec["token"], spec["agent"], streaming=False)
    try:
        raw = await asyncio.to_thread(Path(spec["file"]).read_bytes)
        part = a2a_pb2.Part(raw=raw, media_type=spec["media_type"], filename=spec["filename"])
        msg = message("Describe the picture", message_id="file-1")
        msg.parts.append(part)
        done = await send(caller, msg)
        return {"id": done.id, "state": state(done), "answer": answer(done)}
    finally:
        await caller.close()


SCENARIOS = {
    "tour": tour,
    "file_part": file_part,
    "multi_turn": multi_turn,
    "approval": approval,
    "resume": resume,
    "card": public_card,
}


def main() -> None:
    spec = json.loads(sys.argv[1])
    found = asyncio.run(SCENARIOS[spec["scenario"]](spec))
    print(json.dumps(found), flush=True)


if __name__ == "__main__":
    main()
