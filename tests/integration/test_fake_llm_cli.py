"""`agentd fake-llm` as a gateway team would run it: a separate process, driven by a script file,
with agentd (another process) pointed at it."""

from __future__ import annotations

import json
from pathlib import Path

from agentd.v1 import tasks_pb2
from agentd_client.client import AgentClient
from tests.helpers import fake_llm_process, llm_env, server_process


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
    with (
        fake_llm_process(script) as base_url,
        server_process(tmp_path, llm_env(base_url)) as served,
    ):
        async with AgentClient(served.address) as client:
            events = [
                e
                async for e in client.execute(
                    "what is 40+2?", mode=tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
                )
            ]
    answer = next(e.final_answer for e in events if e.WhichOneof("payload") == "final_answer")
    assert answer.text == "The answer is 42."
