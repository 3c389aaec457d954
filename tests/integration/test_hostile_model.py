"""Model output is untrusted input: whatever an endpoint sends, the task ends, its record
stays readable (also after a restart), and a pathological tool call fails alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentd.v1 import tasks_pb2
from server.settings import Settings
from tests.integration.harness import assert_well_formed, final, harness, of_kind
from tests.servers import running_server

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
CALC = {"name": "calculator", "arguments": {"expression": "6*7"}}


async def test_negative_token_counts_never_break_a_task_record(tmp_path: Path) -> None:
    replies: list[dict[str, Any]] = [
        {"tool_calls": [CALC], "usage": {"prompt_tokens": -1_000_000, "completion_tokens": -5}},
        {"text": "42.", "usage": {"prompt_tokens": 10**15, "completion_tokens": 3}},
    ]
    async with harness(tmp_path, replies) as h:
        events = await h.run("what is 6*7?", mode=FC)
        assert_well_formed(events)
        task = await h.client.get_task(events[0].task_id)
        listed = await h.client.list_tasks()
        settings = h.server.settings
    # Clamped: never negative, never absurd. The first call's counts clamp to nothing, so
    # that call is counted by estimate (a few hundred tokens); the second's to 10**9.
    assert 10**9 < task.usage.prompt_tokens < 10**9 + 10_000
    assert 3 < task.usage.completion_tokens < 100
    assert [t.task_id for t in listed.tasks] == [task.task_id]
    # The stored record is read back by a new process (from the history) just as well.
    without_model = Settings(**{**settings.model_dump(), "llm_model": None})
    async with running_server(without_model) as again, again.client(timeout=10) as client:
        stored = await client.get_task(task.task_id)
        assert stored.status == tasks_pb2.TASK_STATUS_COMPLETED
        assert stored.usage.prompt_tokens == task.usage.prompt_tokens
        assert len((await client.list_tasks()).tasks) == 1


async def test_lone_surrogates_from_the_model_are_replaced_not_fatal(tmp_path: Path) -> None:
    surrogate = json.loads('"\\ud800"')  # what JSON's escape decodes to: not UTF-8 text
    replies: list[dict[str, Any]] = [
        {
            "tool_calls": [{"name": "calculator", "arguments_raw": '{"expression": "1+1\\udc00"}'}],
        },
        {"text": f"The answer {surrogate} is 2.", "reasoning": f"think {surrogate}"},
    ]
    async with harness(tmp_path, replies) as h:
        events = await h.run("what is 1+1?", mode=FC)
        assert_well_formed(events)
        replayed = [e async for e in h.client.stream_task_events(events[0].task_id)]
        task = await h.client.get_task(events[0].task_id)
    assert final(events).text == "The answer \ufffd is 2."
    assert replayed == events
    assert task.final_answer == "The answer \ufffd is 2."
    assert "\ufffd" in of_kind(events, "tool_call_started")[0].arguments["expression"]


async def test_arguments_nested_50000_deep_fail_one_tool_call_not_the_task(
    tmp_path: Path,
) -> None:
    deep = '{"expression": ' + "[" * 50_000 + "]" * 50_000 + "}"
    replies: list[dict[str, Any]] = [
        {"tool_calls": [{"name": "calculator", "arguments_raw": deep}, CALC]},
        {"text": "One call failed; 6*7 is 42."},
    ]
    async with harness(tmp_path, replies) as h:
        events = await h.run("what is 6*7?", mode=FC)
    assert_well_formed(events)
    finished = of_kind(events, "tool_call_finished")
    assert len(finished) == 2
    assert "nested deeper than 64 levels" in finished[0].error.message
    assert finished[1].text == "42"


async def test_a_reply_asking_for_300_tool_calls_runs_only_the_first_32(tmp_path: Path) -> None:
    calls = [{"name": "calculator", "arguments": {"expression": f"{n}+1"}} for n in range(300)]
    replies: list[dict[str, Any]] = [{"tool_calls": calls}, {"text": "Done."}]
    async with harness(tmp_path, replies) as h:
        events = await h.run("add one to many numbers", mode=FC)
        second_request = h.llm.requests[1]
    assert_well_formed(events)
    assert len(of_kind(events, "tool_call_started")) == 32
    told = [m["content"] for m in second_request["messages"] if m["role"] == "user"]
    assert any("268 more were not" in text for text in told)


async def test_a_reply_of_megabytes_is_cut_so_the_task_stays_readable(tmp_path: Path) -> None:
    replies: list[dict[str, Any]] = [
        {"text": "blah " * 1_200_000, "reasoning": "hmm " * 600_000, "chunks": 50}
    ]
    async with harness(tmp_path, replies) as h:
        events = await h.run("talk", mode=FC)
        assert_well_formed(events)
        task = await h.client.get_task(events[0].task_id)  # 6 MB would not fit a message
        replayed = [e async for e in h.client.stream_task_events(events[0].task_id)]
    assert task.final_answer.endswith("characters]")
    assert 1_000_000 <= len(task.final_answer) <= 1_000_100
    streamed = "".join(e.text_delta.text for e in events if e.HasField("text_delta"))
    assert len(streamed) == 1_000_000
    reasoning = "".join(e.reasoning_delta.text for e in events if e.HasField("reasoning_delta"))
    assert len(reasoning) <= 1_000_000
    assert len(replayed) == len(events)
