"""`agentd fake-llm` as a gateway team would run it: a separate process, driven by a script file,
with agentd (another process) pointed at it."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import subprocess
import sys
from pathlib import Path

from agentd.v1 import tasks_pb2
from clients.client import AgentClient
from tests.helpers import ROOT, server_process


async def test_agentd_against_the_fake_llm_process(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            {
                "replies": [
                    {"tool_calls": [{"name": "calculator", "arguments": {"expression": "40+2"}}]},
                    {"text": "The answer is 42."},
                ]
            }
        )
    )
    fake = subprocess.Popen(  # noqa: ASYNC220 - started once; its output is read in a thread
        [sys.executable, "-m", "clients.cli", "fake-llm", "--script", str(script), "--port", "0"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert fake.stdout is not None
        line = await asyncio.to_thread(fake.stdout.readline)
        match = re.search(r"on (http://\S+) \(2 replies\)", line)
        assert match, line
        env = {
            "AGENTD_LLM_BASE_URL": match.group(1),
            "AGENTD_LLM_MODEL": "fake",
            "AGENTD_LLM_API_KEY": "k",
        }
        with server_process(tmp_path, env) as served:
            async with AgentClient(served.address) as client:
                events = [
                    e
                    async for e in client.execute(
                        "what is 40+2?", mode=tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
                    )
                ]
        answer = next(e.final_answer for e in events if e.WhichOneof("payload") == "final_answer")
        assert answer.text == "The answer is 42."
    finally:
        fake.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(fake.wait, 10) == 0
        if fake.stdout is not None:
            fake.stdout.close()
