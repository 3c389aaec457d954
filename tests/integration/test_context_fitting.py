"""Every model request fits: through the real server against a fake model with a declared
8k window, which counts each request itself and answers 400 past it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import grpc
import pytest

from agent.llm.fakes.server import FakeOpenAIServer
from agentd.v1 import tasks_pb2
from agentd_client import errors as client_errors
from tests.integration.harness import assert_well_formed, final, model_settings, of_kind
from tests.servers import QUIET, running_server, settings_in

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
WINDOW = 8_192
TOO_LONG: dict[str, Any] = {
    "error": {
        "status": 400,
        "code": "context_length_exceeded",
        "message": "This model's maximum context length is 8192 tokens.",
    }
}


def _settings(tmp_path: Path, llm: FakeOpenAIServer, **more: Any) -> Any:
    return settings_in(
        tmp_path,
        **{**QUIET, **model_settings(llm), "grace_period_seconds": 1.0},
        model_windows=[f"fake-model={WINDOW}:1024"],
        llm_max_attempts=1,
        **more,
    )


async def test_ten_large_tool_results_fit_an_8k_model(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    for index in range(10):
        (workspace / f"part{index}.txt").write_text(f"{index}" * 25_000)
    reads = [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": f"part{index}.txt"}}]}
        for index in range(10)
    ]
    replies: list[dict[str, Any]] = [*reads, {"text": "Read all ten parts."}]
    async with FakeOpenAIServer(replies, context_window=WINDOW) as llm:
        async with running_server(_settings(tmp_path, llm)) as running:
            client = running.client(timeout=30)
            events = [
                e
                async for e in client.execute(
                    "Read part0.txt to part9.txt", mode=FC, max_iterations=12
                )
            ]
        assert_well_formed(events)
        assert final(events).text == "Read all ten parts."
        finished = of_kind(events, "tool_call_finished")
        assert len(finished) == 10
        assert all(len(f.text) >= 20_000 for f in finished)
        fitted = of_kind(events, "context_fitted")
        assert fitted, "the transcript outgrew the window: some requests must have been cut"
        assert all(f.model == "fake-model" and f.context_window == WINDOW for f in fitted)
        assert all(f.saved_tokens > 0 and not f.retry for f in fitted)
        assert all(f.prompt_tokens + f.max_tokens <= WINDOW for f in fitted)
        assert llm.refused_too_long == 0  # the fake model never had to refuse a request
        assert len(llm.requests) == 11
        last = llm.requests[-1]
        assert last["max_tokens"] <= 1024
        assert "were cut to fit the model's context window" in str(last["messages"])
        assert last["messages"][1]["content"] == "Read part0.txt to part9.txt"  # the goal
        llm.assert_complete()


async def test_a_context_length_error_gets_one_compacted_retry(tmp_path: Path) -> None:
    replies = [TOO_LONG, {"text": "fine after all"}]
    async with FakeOpenAIServer(replies) as llm:
        async with running_server(_settings(tmp_path, llm)) as running:
            events = [e async for e in running.client(timeout=30).execute("hello", mode=FC)]
        assert_well_formed(events)
        assert final(events).text == "fine after all"
        (retry,) = of_kind(events, "context_fitted")
        assert retry.retry
        assert retry.role == "executor"
        assert retry.prompt_tokens + retry.max_tokens <= int(WINDOW * 0.95 * 0.7)
        assert len(llm.requests) == 2
        llm.assert_complete()


async def test_two_context_length_errors_fail_the_task_context_too_long(tmp_path: Path) -> None:
    replies = [TOO_LONG, TOO_LONG]
    async with FakeOpenAIServer(replies) as llm:
        async with running_server(_settings(tmp_path, llm)) as running:
            client = running.client(timeout=30)
            events = [e async for e in client.execute("hello", mode=FC)]
            task = await client.get_task(events[0].task_id)
        assert_well_formed(events, tasks_pb2.TASK_STATUS_FAILED)
        error = of_kind(events, "error")[-1]
        assert error.reason == "CONTEXT_TOO_LONG"
        assert error.fatal
        assert "does not fit its context window" in error.message
        assert task.status == tasks_pb2.TASK_STATUS_FAILED
        assert task.error.reason == "CONTEXT_TOO_LONG"
        assert len(llm.requests) == 2
        llm.assert_complete()


async def test_the_plan_rpc_answers_invalid_argument_context_too_long(tmp_path: Path) -> None:
    async with FakeOpenAIServer([TOO_LONG, TOO_LONG]) as llm:
        async with running_server(_settings(tmp_path, llm)) as running:
            with pytest.raises(client_errors.ContextTooLongError) as raised:
                await running.client(timeout=30).plan("plan a trip")
        assert raised.value.code is grpc.StatusCode.INVALID_ARGUMENT
        assert raised.value.reason == "CONTEXT_TOO_LONG"
        llm.assert_complete()
