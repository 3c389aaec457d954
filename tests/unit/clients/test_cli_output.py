"""What the `agentd` commands print for people: citations with the answer, a task's
children and tokens, top-level tasks unless asked for children, integers for token
counts, a tools table that aligns and cuts descriptions between words, a line for an
empty listing, and `memory forget` asking first. The commands run as parsed from their
command line against a stand-in for the client (the server's side is tested elsewhere)."""

from __future__ import annotations

import argparse
import builtins
import json
import sys
from collections.abc import AsyncIterator, Sequence
from typing import Any

import pytest

from agentd.v1 import agent_service_pb2 as pb
from agentd.v1 import events_pb2, memory_pb2, tasks_pb2, tools_pb2
from clients import cli, knowledge_cli
from clients.options import OptionError
from clients.output import as_json, describe_event
from server.commands.cli import build_parser

COMPLETED = tasks_pb2.TASK_STATUS_COMPLETED
CITATIONS = [
    memory_pb2.Citation(knowledge_base_id="support", document_id="doc_7f", chunk_index=3,
                        score=0.8312, snippet="Refunds are paid within 14 days of the return."),
    memory_pb2.Citation(knowledge_base_id="faq", document_id="doc_01", chunk_index=0,
                        score=0.5, snippet="Returns: " + "long words " * 40),
]  # fmt: skip
USAGE = tasks_pb2.TokenUsage(prompt_tokens=120, completion_tokens=30, total_tokens=150)


def parsed(*argv: str) -> argparse.Namespace:
    args = build_parser().parse_args(argv)
    args.address, args.api_key = "127.0.0.1:1", ""
    return args


def event(sequence: int, **payload: Any) -> events_pb2.TaskEvent:
    return events_pb2.TaskEvent(task_id="task_1", sequence=sequence, **payload)


def task(task_id: str, parent: str = "", **fields: Any) -> tasks_pb2.Task:
    return tasks_pb2.Task(task_id=task_id, task=f"goal of {task_id}", parent_task_id=parent,
                          status=COMPLETED, **fields)  # fmt: skip


class Client:
    """The calls the commands make, answered from what the test gives."""

    def __init__(self, **given: Any) -> None:
        self.given = given
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def execute(self, task: str, **options: Any) -> AsyncIterator[events_pb2.TaskEvent]:
        async def events() -> AsyncIterator[events_pb2.TaskEvent]:
            for found in self.given["events"]:
                yield found

        return events()

    async def get_task(self, task_id: str) -> tasks_pb2.Task:
        found: tasks_pb2.Task = self.given["task"]
        return found

    async def list_tasks(self, **options: Any) -> pb.ListTasksResponse:
        self.calls.append(("list_tasks", options))
        pages: list[pb.ListTasksResponse] = self.given["pages"]
        index = int(options["page_token"] or 0)
        return pages[index]

    async def list_tools(self, category: str) -> list[tools_pb2.Tool]:
        tools: list[tools_pb2.Tool] = self.given.get("tools", [])
        return tools

    async def list_agents(self) -> list[Any]:
        return []

    async def list_conversations(self, page_token: str) -> Any:
        from agentd.v1 import conversations_pb2

        return conversations_pb2.ListConversationsResponse()

    async def list_memories(
        self, namespace: str, page_token: str
    ) -> memory_pb2.ListMemoriesResponse:
        return memory_pb2.ListMemoriesResponse()

    async def forget_user(self) -> int:
        self.calls.append(("forget_user", {}))
        return 3


async def run(client: Client, *argv: str) -> int:
    args = parsed(*argv)
    command = cli._COMMANDS[args.command]
    return await command(client, args)  # type: ignore[arg-type]


def final(text: str = "Refunds take 14 days.") -> events_pb2.TaskEvent:
    return event(5, final_answer=events_pb2.FinalAnswer(text=text, citations=CITATIONS))


async def test_exec_follow_shows_the_answers_citations(capsys: pytest.CaptureFixture[str]) -> None:
    ended = event(6, status_changed=events_pb2.TaskStatusChanged(current=COMPLETED))
    events = [event(1, status_changed=events_pb2.TaskStatusChanged(
        current=tasks_pb2.TASK_STATUS_RUNNING)), final(), ended]  # fmt: skip
    assert await run(Client(events=events), "exec", "refunds?", "--follow") == 0
    printed = capsys.readouterr().out.splitlines()
    at = printed.index("Refunds take 14 days.")
    assert printed[at + 1] == (
        "[1] support/doc_7f#3 (0.83) Refunds are paid within 14 days of the return."
    )
    assert printed[at + 2].startswith("[2] faq/doc_01#0 (0.50) Returns: long words")
    assert printed[at + 2].endswith("words…")
    assert printed[-1].endswith("completed")


async def test_task_shows_its_tokens_children_and_citations(
    capsys: pytest.CaptureFixture[str],
) -> None:
    shown = task(
        "task_1", final_answer="Refunds take 14 days.", usage=USAGE, citations=CITATIONS,
        children=[tasks_pb2.SubtaskSummary(task_id="task_2", agent="researcher@1",
                                           status=COMPLETED, usage=USAGE)],
    )  # fmt: skip
    assert await run(Client(task=shown), "task", "task_1") == 0
    printed = capsys.readouterr().out.splitlines()
    assert "150 tokens (120 prompt, 30 completion)" in printed
    assert "child task_2  researcher@1  completed  150 tokens" in printed
    at = printed.index("Refunds take 14 days.")
    assert printed[at + 1].startswith("[1] support/doc_7f#3 (0.83) Refunds are paid")


PAGES = [
    pb.ListTasksResponse(tasks=[task("task_9"), task("task_8", "task_9"), task("task_7", "task_9")],
                         next_page_token="1"),
    pb.ListTasksResponse(tasks=[task("task_6"), task("task_5", "task_6")], next_page_token="2"),
    pb.ListTasksResponse(tasks=[task("task_4")]),
]  # fmt: skip


def listed(out: str) -> list[str]:
    return [line.split()[0] for line in out.splitlines()]


async def test_tasks_lists_top_level_tasks_unless_asked_for_children(
    capsys: pytest.CaptureFixture[str],
) -> None:
    client = Client(pages=PAGES)
    assert await run(client, "tasks", "--limit", "2") == 0
    said = capsys.readouterr()
    assert listed(said.out) == ["task_9", "task_6"]  # two ListTasks pages for two of them
    assert said.err == "more: agentd tasks --page-token 2 (or --all)\n"
    assert await run(client, "tasks", "--all") == 0
    assert listed(capsys.readouterr().out) == ["task_9", "task_6", "task_4"]
    assert await run(client, "tasks", "--all", "--children") == 0
    assert listed(capsys.readouterr().out) == [
        "task_9", "task_8", "task_7", "task_6", "task_5", "task_4",
    ]  # fmt: skip
    assert await run(client, "--json", "tasks", "--all") == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [row["task_id"] for row in rows] == ["task_9", "task_6", "task_4"]


async def test_tasks_with_a_parent_lists_its_children(capsys: pytest.CaptureFixture[str]) -> None:
    only = [pb.ListTasksResponse(tasks=[task("task_8", "task_9"), task("task_7", "task_9")])]
    client = Client(pages=only)
    assert await run(client, "tasks", "--parent", "task_9") == 0
    assert listed(capsys.readouterr().out) == ["task_8", "task_7"]
    assert client.calls[0][1]["parent_task_id"] == "task_9"


async def test_token_counts_are_integers_in_events_and_json(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """ProtoJSON writes uint64 as strings ("150"); the CLI prints numbers."""
    usage = event(4, usage=events_pb2.UsageReported(role="executor", model="gpt-4o",
                  call=USAGE, task_total=tasks_pb2.TokenUsage(total_tokens=450)))  # fmt: skip
    line = describe_event(usage)
    assert line.endswith("usage                executor gpt-4o: 150 tokens (120 prompt, 30 "
                         "completion); task so far 450 tokens")  # fmt: skip
    written = json.loads(as_json(usage))
    assert written["sequence"] == 4
    assert written["usage"]["call"] == {"prompt_tokens": 120, "completion_tokens": 30,
                                        "total_tokens": 150}  # fmt: skip
    compacted = event(7, history_compacted={"summarized_through": 12, "tokens_saved": 900})
    assert describe_event(compacted).endswith('{"summarizedThrough": 12, "tokensSaved": 900}')
    shown = task("task_1", usage=USAGE, children=[tasks_pb2.SubtaskSummary(usage=USAGE)])
    assert await run(Client(task=shown), "--json", "task", "task_1") == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["usage"]["total_tokens"] == 150
    assert printed["children"][0]["usage"]["prompt_tokens"] == 120


TOOLS = [
    tools_pb2.Tool(
        name="calculator",
        category="math",
        description="Evaluate arithmetic.",
        required_permission=tools_pb2.PERMISSION_LEVEL_NONE,
    ),
    tools_pb2.Tool(
        name="search_knowledge",
        category="knowledge",
        required_permission=tools_pb2.PERMISSION_LEVEL_READ,
        description="Search a knowledge base, e.g. the product manual, for passages that "
        "answer a question and return them with their sources to cite in the answer.",
    ),
    tools_pb2.Tool(
        name="http_get",
        category="web",
        description="Fetch a URL (e.g. an API).",
        required_permission=tools_pb2.PERMISSION_LEVEL_NONE,
    ),
]


def test_the_tools_table_aligns_and_cuts_between_words() -> None:
    lines = cli.tool_lines(TOOLS, width=80)
    starts = {line.index(d) for line, d in zip(lines, ("Evaluate", "Search", "Fetch"),
                                                strict=True)}  # fmt: skip
    assert len(starts) == 1  # one column, whatever the name's length
    assert [line.split()[:3] for line in lines] == [
        ["calculator", "math", "none"],
        ["search_knowledge", "knowledge", "read"],
        ["http_get", "web", "none"],
    ]
    assert lines[2].endswith("Fetch a URL (e.g. an API).")  # "e.g." is not a sentence's end
    assert all(len(line) <= 80 for line in lines)
    assert lines[1].endswith("…")
    kept = lines[1][lines[1].index("Search") : -1]
    assert TOOLS[1].description.startswith(kept)
    assert TOOLS[1].description[len(kept)] == " "  # cut between two words


def test_cut_never_cuts_inside_a_word() -> None:
    from clients.output import cut

    assert cut("Search a base, e.g. the manual", 20) == "Search a base, e.g.…"
    assert cut("Search a base, e.g. the manual", 19) == "Search a base…"
    assert cut("short", 10) == "short"
    assert cut("one   line\nonly", 20) == "one line only"


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (("tasks",), "no tasks"),
        (("tools",), "no tools you may use"),
        (("agents", "list"), "no agents (make one: agentd agents create FILE)"),
        (("conversations", "list"), "no conversations"),
        (("memory", "list"), "no memories of yours"),
    ],
)
async def test_an_empty_listing_says_so(
    argv: Sequence[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    client = Client(pages=[pb.ListTasksResponse()])
    assert await run(client, *argv) == 0
    assert capsys.readouterr().out == said + "\n"
    assert await run(client, "--json", *argv) == 0
    assert capsys.readouterr().out == ""  # JSON lines: nothing is nothing


async def test_tasks_says_when_only_child_tasks_were_found(
    capsys: pytest.CaptureFixture[str],
) -> None:
    client = Client(pages=[pb.ListTasksResponse(tasks=[task("task_8", "task_9")])])
    assert await run(client, "tasks") == 0
    assert capsys.readouterr().out == "no tasks (1 child tasks: --children)\n"


class Terminal:
    def __init__(self, tty: bool) -> None:
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


async def test_memory_forget_asks_first(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    client = Client()
    monkeypatch.setattr(sys, "stdin", Terminal(tty=True))
    asked: list[str] = []

    def no(question: str) -> str:
        asked.append(question)
        return "n"

    monkeypatch.setattr(builtins, "input", no)
    assert await run(client, "memory", "forget") == 1
    assert asked == [f"{knowledge_cli.FORGET_QUESTION} [y/N] "]
    assert client.calls == []  # nothing deleted
    assert capsys.readouterr().err == "kept your memories\n"
    monkeypatch.setattr(builtins, "input", lambda question: "y")
    assert await run(client, "memory", "forget") == 0
    assert client.calls == [("forget_user", {})]
    assert capsys.readouterr().out == "forgot 3 memories\n"


async def test_memory_forget_without_a_terminal_needs_yes(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    client = Client()
    monkeypatch.setattr(sys, "stdin", Terminal(tty=False))
    with pytest.raises(OptionError, match="agentd memory forget --yes"):
        await run(client, "memory", "forget")
    assert client.calls == []
    assert await run(client, "memory", "forget", "--yes") == 0
    assert client.calls == [("forget_user", {})]
