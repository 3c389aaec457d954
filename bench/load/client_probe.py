"""The gateway side of the gRPC benchmarks, run as its own process (as a gateway is).

    python -m bench.load.client_probe first ADDRESS RUNS      # Execute time to first event
    python -m bench.load.client_probe stream ADDRESS TASK_ID  # StreamTaskEvents replay rate

Prints one JSON object.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time

from agentd.v1 import tasks_pb2
from agentd_client.client import AgentClient


async def first_event(address: str, runs: int) -> dict[str, float]:
    samples = []
    async with AgentClient(address) as client:
        for _ in range(runs):
            start = time.perf_counter()
            stream = client.execute("say something", mode=tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING)
            await anext(stream)
            samples.append(time.perf_counter() - start)
            async for _ in stream:
                pass
    samples.sort()
    return {
        "p50_ms": statistics.median(samples[2:]) * 1000,
        "p90_ms": samples[int(len(samples) * 0.9) - 1] * 1000,
    }


async def stream_rate(address: str, task_id: str, rounds: int = 5) -> dict[str, float]:
    rates = []
    count = 0
    async with AgentClient(address) as client:
        for _ in range(rounds):
            start = time.perf_counter()
            count = 0
            async for _ in client.stream_task_events(task_id):
                count += 1
            rates.append(count / (time.perf_counter() - start))
    return {"events_per_s": statistics.median(rates), "events": count}


def main() -> None:
    what, address, arg = sys.argv[1], sys.argv[2], sys.argv[3]
    if what == "first":
        result = asyncio.run(first_event(address, int(arg)))
    else:
        result = asyncio.run(stream_rate(address, arg))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
