"""Long URLs reach the model as placeholders and come back exactly (agent/running/urls.py)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from agent.engine import Engine
from agent.limits import EngineConfig
from agent.llm.roles import ModelRoles
from agent.llm.testing import FunctionModel, text, tool_calls
from agent.parts import EngineParts
from agent.running.urls import MAX_URLS, UrlBook
from core.identity import CallContext
from records import events as ev
from records.execution import ExecutionMode
from records.messages import Message, ModelResponse, ModelSettings, ToolDefinition
from records.requests import TaskRequest
from records.tasks import TaskStatus
from tests.unit.agent.runs import PRINCIPAL, make_env

REPORT = "https://reports.example.com/2026/q3/summary.pdf?utm_source=newsletter&utm_medium=email"
SEARCH = "https://search.example.org/results?q=agentd+grpc&page=2&session=8f2c1d9e7a6b5c4d"
SHORT = "https://x.io/a"
TOKEN = "ab12cd34ef56"


def test_long_urls_become_placeholders_and_come_back_exactly() -> None:
    book = UrlBook(40, token=TOKEN)
    original = (
        f"See {REPORT}. Also ({SEARCH}), {SHORT}, and {REPORT}!\n"
        f'JSON: {{"url": "{SEARCH}"}} <{REPORT}>'
    )

    shortened = book.shorten(original)

    assert REPORT not in shortened
    assert SEARCH not in shortened
    assert SHORT in shortened  # under the length: left alone
    assert shortened.count(f"https://url.invalid/1-{TOKEN}") == 3  # one placeholder per URL
    assert shortened.count(f"https://url.invalid/2-{TOKEN}") == 2
    assert f"https://url.invalid/1-{TOKEN}. Also (" in shortened  # punctuation stays outside
    assert book.restore(shortened) == original
    assert len(shortened) < len(original) - 200


def test_only_this_runs_placeholders_restore() -> None:
    book = UrlBook(40, token=TOKEN)
    book.shorten(REPORT)
    forged = f"https://url.invalid/1-{'f' * 12} and https://url.invalid/9-{TOKEN}"
    assert book.restore(forged) == forged  # another run's token, an unknown number
    assert book.restore(f"https://url.invalid/1-{TOKEN}") == REPORT


def test_zero_turns_shortening_off_and_the_book_is_bounded() -> None:
    assert UrlBook(0).shorten(REPORT) == REPORT
    book = UrlBook(20, token=TOKEN)
    urls = [f"https://example.com/page/{n:06d}" for n in range(MAX_URLS + 5)]
    huge = "https://example.com/" + "x" * 3000
    assert book.shorten(huge) == huge  # too long to stand for: left as it is
    shortened = book.shorten(" ".join(urls))
    assert len(book.urls) == MAX_URLS
    assert shortened.endswith(urls[-1])  # past the bound, URLs stay as they are
    assert book.restore(shortened) == " ".join(urls)


def test_placeholders_are_restored_in_nested_arguments() -> None:
    book = UrlBook(40, token=TOKEN)
    placeholder = book.shorten(SEARCH)
    value = {"url": placeholder, "also": [placeholder, 3, {"deep": f"see {placeholder}"}]}
    assert book.restore_value(value) == {
        "url": SEARCH,
        "also": [SEARCH, 3, {"deep": f"see {SEARCH}"}],
    }


def test_streamed_text_is_restored_however_it_is_split() -> None:
    book = UrlBook(40, token=TOKEN)
    answer = f"Read {book.shorten(REPORT)} and {book.shorten(SEARCH)}, today."
    for size in range(1, 40):
        streamer = book.streamer()
        pieces = [answer[i : i + size] for i in range(0, len(answer), size)]
        out = "".join(streamer.feed(piece) for piece in pieces) + streamer.flush()
        assert out == f"Read {REPORT} and {SEARCH}, today.", size


PLACEHOLDER = re.compile(r"https://url\.invalid/\d+-[0-9a-f]{12}")


async def test_a_task_round_trips_urls_through_the_model(tmp_path: Path) -> None:
    """A tool result's long URL reaches the model as a placeholder; the model passes the
    placeholder to another tool, which receives the URL; the final answer, its streamed
    text and the tool events carry the URL."""
    env = make_env(tmp_path, EngineConfig(url_placeholder_min_chars=40))
    seen: list[str] = []

    def reply(
        messages: Sequence[Message], tools: Sequence[ToolDefinition], settings: ModelSettings
    ) -> ModelResponse:
        seen.extend(m.content for m in messages if m.role == "tool")
        asked = sum(1 for m in messages if m.role == "tool")
        if asked == 0:
            return tool_calls(("json_query", {"data": {"report": REPORT}, "expression": "report"}))
        placeholder = PLACEHOLDER.search(seen[-1] if asked == 1 else seen[0])
        assert placeholder is not None
        if asked == 1:
            return tool_calls(("send_message", {"to": placeholder.group(0)}))
        return text(f"Sent the report ({placeholder.group(0)}).")

    engine = Engine(
        ModelRoles(default=FunctionModel(reply)), env.registry, EngineParts(env.store), env.config
    )
    task = await engine.start(
        TaskRequest(
            "send the report",
            tools=("json_query", "send_message"),
            mode=ExecutionMode.FUNCTION_CALLING,
        ),
        CallContext(PRINCIPAL),
    )
    events = [e.payload async for e in env.store.read_events(PRINCIPAL.tenant, task.task_id)]

    assert REPORT not in "".join(seen)  # the model never saw the URL itself
    assert env.send.sent == [REPORT]  # the tool got the URL, not the placeholder
    final = [p for p in events if isinstance(p, ev.FinalAnswer)]
    assert [f.text for f in final] == [f"Sent the report ({REPORT})."]
    streamed = "".join(p.text for p in events if isinstance(p, ev.TextDelta))
    assert streamed == f"Sent the report ({REPORT})."
    started = [p for p in events if isinstance(p, ev.ToolCallStarted)]
    assert started[1].arguments == {"to": REPORT}
    finished = [p for p in events if isinstance(p, ev.ToolCallFinished)]
    assert REPORT in finished[0].text  # events keep the original text
    ended = await env.store.get(PRINCIPAL.tenant, task.task_id)
    assert ended.status is TaskStatus.COMPLETED
    assert ended.final_answer == f"Sent the report ({REPORT})."


async def test_a_resumed_run_knows_the_placeholders_the_model_was_given(tmp_path: Path) -> None:
    env = make_env(tmp_path, EngineConfig(url_placeholder_min_chars=40))
    model = FunctionModel(lambda messages, tools, settings: text("unused"))
    run = await env.run(model)
    placeholder = run.transcript.urls.shorten(REPORT)
    await run.checkpoint()

    saved = await env.saved(run)
    assert saved is not None
    resumed = await env.run(model, resumed=saved, task_id=run.task.task_id)

    assert resumed.transcript.urls.restore(placeholder) == REPORT
    assert resumed.transcript.urls.shorten(SEARCH) == placeholder.replace(
        "/1-", "/2-"
    )  # numbering goes on
