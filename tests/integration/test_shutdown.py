"""SIGTERM drain of a real `agentd serve` process.

A slow in-flight call (http_request to a local server that answers after a
delay) shows that in-flight work finishes within the grace period while
health reports NOT_SERVING and new calls are refused with UNAVAILABLE.
"""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path

import grpc
import pytest

from agentd_client import errors as client_errors
from agentd_client.client import AgentClient, to_python
from tests.helpers import http_server, server_process


async def test_sigterm_drains_in_flight_calls_then_exits_zero(tmp_path: Path) -> None:
    env = {
        "AGENTD_HTTP_ALLOWED_NETWORKS": "127.0.0.1/32",
        "AGENTD_SHUTDOWN_DELAY_SECONDS": "1.0",
        "AGENTD_GRACE_PERIOD_SECONDS": "10",
    }
    with http_server() as url, server_process(tmp_path, env) as served:
        async with AgentClient(served.address, timeout=15) as client:
            assert await client.health() == "SERVING"
            slow = asyncio.create_task(client.call_tool("http_request", {"url": f"{url}/slow=2.5"}))
            await asyncio.sleep(0.5)
            served.terminate()
            await asyncio.sleep(0.3)
            # Health is answered, and says NOT_SERVING, while new work is refused.
            assert await client.health() == "NOT_SERVING"
            assert await client.health("agentd.v1.AgentService") == "NOT_SERVING"
            with pytest.raises(client_errors.ShuttingDownError) as refused:
                await client.call_tool("calculator", {"expression": "1+1"})
            assert refused.value.code is grpc.StatusCode.UNAVAILABLE
            # The in-flight call finishes normally.
            result = await slow
            assert to_python(result.result)["body"] == "slow done"
        started = time.monotonic()
        assert await asyncio.to_thread(served.wait, 15) == 0
        assert time.monotonic() - started < 10
        assert '"event": "draining"' in served.log()


async def test_grace_period_bounds_the_drain(tmp_path: Path) -> None:
    env = {"AGENTD_HTTP_ALLOWED_NETWORKS": "127.0.0.1/32", "AGENTD_GRACE_PERIOD_SECONDS": "0.5"}
    with http_server() as url, server_process(tmp_path, env) as served:
        async with AgentClient(served.address, timeout=15) as client:
            slow = asyncio.create_task(client.call_tool("http_request", {"url": f"{url}/slow=5"}))
            await asyncio.sleep(0.5)
            started = time.monotonic()
            served.terminate()
            with pytest.raises(client_errors.AgentdError) as cut:
                await slow
            assert cut.value.code in (grpc.StatusCode.CANCELLED, grpc.StatusCode.UNAVAILABLE)
            assert await asyncio.to_thread(served.wait, 15) == 0
            assert time.monotonic() - started < 4


async def test_sigint_also_stops_cleanly(tmp_path: Path) -> None:
    with server_process(tmp_path) as served:
        async with AgentClient(served.address) as client:
            assert await client.health() == "SERVING"
        served.process.send_signal(signal.SIGINT)
        assert await asyncio.to_thread(served.wait, 15) == 0


async def test_sigterm_gives_running_tasks_the_grace_period(tmp_path: Path) -> None:
    """A task nobody is streaming still gets the grace period to finish before the server exits."""
    import sqlite3

    from agent.llm.fakes.server import FakeOpenAIServer
    from agentd.v1 import tasks_pb2
    from tests.helpers import llm_env

    replies = [{"delay_seconds": 1.5, "text": "finished during the drain"}]
    async with FakeOpenAIServer(replies) as llm:
        env = llm_env(llm.base_url, AGENTD_GRACE_PERIOD_SECONDS="10")
        with server_process(tmp_path, env) as served:
            async with AgentClient(served.address) as client:
                stream = client.execute("slow", mode=tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING)
                first = await anext(stream)
                await stream.aclose()  # type: ignore[attr-defined]  # nobody follows the task
                await asyncio.sleep(0.3)
                served.terminate()
            assert await asyncio.to_thread(served.wait, 20) == 0
    row = (
        sqlite3.connect(tmp_path / "agentd.db")
        .execute(
            "select status, final_answer from task_history where task_id = ?", (first.task_id,)
        )
        .fetchone()
    )
    assert row == ("completed", "finished during the drain")


async def test_sigterm_lets_an_mcp_call_finish_then_stops_the_mcp_server(tmp_path: Path) -> None:
    from tests.integration.toolsets import notes_log, stdio_notes, write_toolsets

    notes = stdio_notes(tmp_path, level="read", tools={"slow": {"level": "read"}})
    env = {
        "AGENTD_TOOLSETS_FILE": str(write_toolsets(tmp_path / "toolsets.yaml", {"notes": notes})),
        "AGENTD_GRACE_PERIOD_SECONDS": "10",
    }
    with server_process(tmp_path, env) as served:
        mcp_pid = int((tmp_path / "notes.pid").read_text())  # listed before serving
        async with AgentClient(served.address, timeout=15) as client:
            slow = asyncio.create_task(client.call_tool("notes.slow", {"seconds": 1.0}))
            for _ in range(200):  # bounded: until the MCP server has the call
                if "slow started" in notes_log(tmp_path):
                    break
                await asyncio.sleep(0.05)
            served.terminate()
            assert (await slow).text == "slept 1.0"  # the in-flight call finished
        assert await asyncio.to_thread(served.wait, 20) == 0
    assert not Path(f"/proc/{mcp_pid}").exists()  # the MCP server is gone with it
