"""Engine benchmark: what agentd adds on top of the model, measured in one run.

The engine runs against the in-process fake OpenAI server with no added
latency. Every figure is set against a baseline measured in the same run:

- engine overhead per function-calling turn and per plan-and-execute step:
  the task's wall time minus the time bare `openai` calls take to replay the
  very requests the task sent, to the same server;
- the same plan-and-execute workflow on LangGraph (ChatOpenAI against the
  same server), its overhead computed the same way, as a ratio;
- Execute time to first event, measured by a gateway process of its own;
- events per second streamed over gRPC (StreamTaskEvents of a finished
  task with ~2,000 events), against a bare grpc.aio server streaming the very
  same messages, both read by the same gateway process.

Loops are bounded in count and time.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, TypedDict

import grpc
import openai

from agent.engine import Engine
from agent.limits import EngineConfig, PlanPolicy
from agent.llm.fakes.server import FakeOpenAIServer
from agent.llm.openai import OpenAIModel
from agent.llm.roles import ModelRoles
from agent.parts import EngineParts
from agent.spending.calls import Metering
from agentd.v1 import agent_service_pb2 as pb
from agentd.v1 import events_pb2
from agentd.v1.tasks_pb2 import EXECUTION_MODE_FUNCTION_CALLING as FUNCTION_CALLING
from agentd_client.client import AgentClient
from core.identity import CallContext
from records.execution import ExecutionMode
from records.requests import TaskRequest
from server import logs
from server.app import AgentdServer
from server.settings import Settings
from server.wiring.builders import build_registry
from stores.audit.memory import InMemoryAuditLog
from stores.tasks.base import TaskStore
from stores.tasks.memory import InMemoryTaskStore

STEPS = 16
FC_TURNS = 8
RUNS = 30
PLANNER = "You are the planner"
SYNTH = "You write the final answer"
ROOT = Path(__file__).resolve().parent.parent


def pe_script() -> list[dict[str, Any]]:
    chain = [
        {
            "id": f"s{i}",
            "description": f"step number {i}",
            "depends_on": [f"s{i - 1}"] if i > 1 else [],
        }
        for i in range(1, STEPS + 1)
    ]
    return [
        {"match": PLANNER, "json": {"steps": chain}, "repeat": -1},
        {"match": SYNTH, "text": "final answer", "repeat": -1},
        {"match": "step number", "text": "step result", "repeat": -1},
        {"match": "STREAM-TASK", "text": "x " * 2000, "chunks": 2000, "repeat": -1},
        {"text": "hi", "repeat": -1},
    ]


def fc_script() -> list[dict[str, Any]]:
    """FC_TURNS tool calls, then the answer. Each call's arguments differ: the engine stops
    a task whose model repeats a call three times in a row (REPEATED_TOOL_CALL)."""
    calls = [
        {"tool_calls": [{"name": "json_query", "arguments": {"data": {"a": n}, "expression": "a"}}]}
        for n in range(FC_TURNS)
    ]
    return [*calls, {"text": "done"}]


async def replay(base_url: str, requests: list[dict[str, Any]]) -> float:
    """Seconds bare openai calls take to send the same requests and read the replies, the
    way agentd's provider does (plain JSON: the SDK's typed chunk models cost more than
    all of agentd's own work per call, and would make the overhead look negative)."""
    wall, _ = await replay_times(base_url, requests)
    return wall


async def replay_times(base_url: str, requests: list[dict[str, Any]]) -> tuple[float, float]:
    """The wall time and the CPU time of this process (the fake server's too, when it runs
    in it) that `replay` takes."""
    client = openai.AsyncOpenAI(base_url=base_url, api_key="k", max_retries=0)
    try:
        await client.models.list()  # open the connection, as the measured run had
        start, cpu = time.perf_counter(), time.process_time()
        for body in requests:  # sent and read as agentd's client does: JSON, no SDK models
            if body.get("stream"):
                stream = await client.post(
                    "/chat/completions",
                    body=body,
                    cast_to=object,
                    stream=True,
                    stream_cls=openai.AsyncStream[object],
                )
                async for _ in stream:
                    pass
            else:
                await client.post("/chat/completions", body=body, cast_to=object)
        return time.perf_counter() - start, time.process_time() - cpu
    finally:
        await client.close()


def engine_on(
    base_url: str, workspace: Path, store: TaskStore, meter: Metering | None = None
) -> Engine:
    """The engine of the bench on the fake server at `base_url` (`meter`: its model calls
    metered, `bench.spending.steps`)."""
    model = OpenAIModel(
        "m", client=openai.AsyncOpenAI(base_url=base_url, api_key="k", max_retries=0)
    )
    registry = build_registry(
        Settings(workspace_dir=workspace, tool_permission="write"), InMemoryAuditLog()
    )
    return Engine(
        ModelRoles(default=model),
        registry,
        EngineParts(store, meter=meter),
        EngineConfig(plan=PlanPolicy(critic_policy="off")),
    )


async def run_task(engine: Engine, store: TaskStore, request: TaskRequest) -> None:
    task = await engine.start(request, CallContext())
    async for _ in store.read_events(task.tenant, task.task_id):
        pass


async def overheads(llm: FakeOpenAIServer, run: Any, runs: int, per: int) -> list[float]:
    """Per-unit overhead of each run: (wall time - replay of its requests) / per."""
    out = []
    for _ in range(runs):
        before = len(llm.requests)
        start = time.perf_counter()
        await run()
        wall = time.perf_counter() - start
        replayed = await replay(llm.base_url, llm.requests[before:])
        out.append((wall - replayed) / per)
    return out


class LGState(TypedDict):
    task: str
    steps: list[str]
    done: list[str]
    answer: str


def _langgraph_app(base_url: str) -> Any:
    from langchain_core.messages import HumanMessage, SystemMessage
    from langchain_openai import ChatOpenAI
    from langgraph.graph import END, START, StateGraph

    llm = ChatOpenAI(base_url=base_url, api_key="k", model="m", max_retries=0)

    async def plan(state: LGState) -> dict[str, Any]:
        reply = await llm.ainvoke(
            [SystemMessage(PLANNER + " of an agent."), HumanMessage(state["task"])]
        )
        return {
            "steps": [s["description"] for s in json.loads(str(reply.content))["steps"]],
            "done": [],
        }

    async def execute(state: LGState) -> dict[str, Any]:
        step = state["steps"][len(state["done"])]
        reply = await llm.ainvoke(
            [SystemMessage("You are the executor of a plan."), HumanMessage(step)]
        )
        return {"done": [*state["done"], str(reply.content)]}

    async def synthesize(state: LGState) -> dict[str, Any]:
        reply = await llm.ainvoke(
            [SystemMessage(SYNTH + "."), HumanMessage("\n".join(state["done"]))]
        )
        return {"answer": str(reply.content)}

    def more(state: LGState) -> str:
        return "execute" if len(state["done"]) < len(state["steps"]) else "synthesize"

    graph = StateGraph(LGState)
    graph.add_node("plan", plan)
    graph.add_node("execute", execute)
    graph.add_node("synthesize", synthesize)
    graph.add_edge(START, "plan")
    graph.add_edge("plan", "execute")
    graph.add_conditional_edges("execute", more, {"execute": "execute", "synthesize": "synthesize"})
    graph.add_edge("synthesize", END)
    return graph.compile()


async def _probe(*args: str) -> dict[str, float]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bench.load.client_probe",
        *args,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await asyncio.wait_for(process.communicate(), 120)
    result: dict[str, float] = json.loads(out)
    return result


async def _bare_stream_server(messages: list[events_pb2.TaskEvent]) -> tuple[grpc.aio.Server, int]:
    async def replay(request: pb.StreamTaskEventsRequest, context: Any) -> Any:
        for message in messages:
            yield message

    handler = grpc.method_handlers_generic_handler(
        "agentd.v1.AgentService",
        {
            "StreamTaskEvents": grpc.unary_stream_rpc_method_handler(
                replay,
                request_deserializer=pb.StreamTaskEventsRequest.FromString,
                response_serializer=events_pb2.TaskEvent.SerializeToString,
            )
        },
    )
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, port


async def _grpc_figures(llm: FakeOpenAIServer, workspace: Path) -> dict[str, float]:
    settings = Settings(
        address="127.0.0.1:0",
        workspace_dir=workspace,
        llm_base_url=llm.base_url,
        llm_model="m",
        llm_api_key="k",
        critic_policy="off",
        log_level="error",
        auth="off",
        delta_flush_ms=0,
        tool_permission="write",
        rate_limits="",
        metrics_address="",
        database_url=f"sqlite+aiosqlite:///{workspace / 'agentd.db'}",
    )
    server = await AgentdServer.start(settings)
    address = f"127.0.0.1:{server.port}"
    try:
        first = await _probe("first", address, str(RUNS * 3))
        async with AgentClient(address) as client:
            events = [e async for e in client.execute("STREAM-TASK", mode=FUNCTION_CALLING)]
            task_id = events[0].task_id
            live = await _probe("stream", address, task_id)
    finally:
        await server.shutdown(grace=0)
    bare_server, port = await _bare_stream_server(events)
    try:
        bare = await _probe("stream", f"127.0.0.1:{port}", task_id)
    finally:
        await bare_server.stop(0)
    return {
        "first_p50_ms": first["p50_ms"],
        "first_p90_ms": first["p90_ms"],
        "agentd_events_per_s": live["events_per_s"],
        "bare_events_per_s": bare["events_per_s"],
        "events": live["events"],
    }


async def _plan_execute_overheads(
    llm: FakeOpenAIServer, workspace: Path
) -> tuple[list[float], list[float]]:
    """Per-step overheads of the plan-and-execute workflow: agentd's, then LangGraph's."""
    store = InMemoryTaskStore()
    engine = engine_on(llm.base_url, workspace, store)
    request = TaskRequest(goal="PE-TASK", mode=ExecutionMode.PLAN_AND_EXECUTE, max_iterations=10)
    await run_task(engine, store, request)  # warm up
    app = _langgraph_app(llm.base_url)
    state = {"task": "PE-TASK", "steps": [], "done": [], "answer": ""}
    await app.ainvoke(state)  # warm up
    pe: list[float] = []
    lg: list[float] = []
    for _ in range(RUNS):  # interleaved, so drift on a busy machine hits both alike
        pe += await overheads(llm, lambda: run_task(engine, store, request), 1, STEPS)
        lg += await overheads(llm, lambda: app.ainvoke(state), 1, STEPS)
    await engine.close()
    return pe, lg


async def _function_calling_overheads(workspace: Path) -> list[float]:
    """Per-turn overheads of function-calling tasks, each against fresh fake servers."""
    fc = []
    for _ in range(RUNS):
        async with (
            FakeOpenAIServer(fc_script()) as fc_llm,
            FakeOpenAIServer(fc_script()) as replay_llm,
        ):
            store = InMemoryTaskStore()
            engine = engine_on(fc_llm.base_url, workspace, store)
            start = time.perf_counter()
            await run_task(
                engine,
                store,
                TaskRequest(
                    goal="FC-TASK",
                    mode=ExecutionMode.FUNCTION_CALLING,
                    max_iterations=FC_TURNS + 1,
                ),
            )
            wall = time.perf_counter() - start
            await engine.close()
            fc.append((wall - await replay(replay_llm.base_url, fc_llm.requests)) / FC_TURNS)
    return fc


def _report(
    pe: list[float], lg: list[float], fc: list[float], grpc_figures: dict[str, float]
) -> None:
    agentd_step, langgraph_step, fc_turn = (
        statistics.median(pe),
        statistics.median(lg),
        statistics.median(fc),
    )
    share = grpc_figures["agentd_events_per_s"] / grpc_figures["bare_events_per_s"]
    g = grpc_figures
    rows = [
        (
            "agentd overhead per plan-and-execute step",
            f"{agentd_step * 1000:.3f} ms ({STEPS}-step chain, critic off)",
        ),
        ("LangGraph overhead per step, same workflow", f"{langgraph_step * 1000:.3f} ms"),
        ("agentd / LangGraph", f"{agentd_step / langgraph_step:.2f} (target <= 0.33)"),
        (
            "agentd overhead per function-calling turn",
            f"{fc_turn * 1000:.3f} ms (model call + one tool call)",
        ),
        (
            "Execute first event (gateway process)",
            f"p50 {g['first_p50_ms']:.2f} ms, p90 {g['first_p90_ms']:.2f} ms (target p50 < 5 ms)",
        ),
        (
            "events streamed over gRPC",
            f"{g['agentd_events_per_s']:,.0f}/s agentd vs "
            f"{g['bare_events_per_s']:,.0f}/s bare grpc.aio = {share:.0%} "
            f"(target >= 50%; {g['events']:.0f} events)",
        ),
    ]
    print("Engine benchmark (loopback; in-process fake OpenAI server, no added latency)")
    for label, value in rows:
        print(f"  {label + ':':<44} {value}")


async def main() -> None:
    logs.configure("error")
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp)
        async with FakeOpenAIServer(pe_script()) as llm:
            pe, lg = await _plan_execute_overheads(llm, workspace)
            grpc_figures = await _grpc_figures(llm, workspace)
        fc = await _function_calling_overheads(workspace)
    _report(pe, lg, fc, grpc_figures)
