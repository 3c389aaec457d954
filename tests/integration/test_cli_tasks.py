"""The `agentd` CLI over tasks, plans, questions and agents, against `agentd serve` as
`make run` starts it (authentication on; the CLI finds the server and the development
key in AGENTD_ADDRESS and AGENTD_API_KEY) with `agentd fake-llm` as its model."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.helpers import ROOT, ServerProcess, fake_llm_process, llm_env, server_process
from tests.integration.harness import PLANNER

PLAN = {
    "steps": [
        {"id": "s1", "description": "add the numbers", "tool": "calculator",
         "arguments": {"expression": "2+3"}},
        {"id": "s2", "description": "greet"},
        {"id": "s3", "description": "report the sum", "depends_on": ["s1"]},
    ]
}  # fmt: skip
REPLIES: list[dict[str, Any]] = [
    {"match": PLANNER, "json": PLAN, "repeat": -1},
    # The file agent's instructions, rendered with the request's context (or without one);
    # its output schema wants a total.
    {"match": "You help Acme.", "json": {"total": 5}, "repeat": -1},
    {"match": "You help {{company}}.", "json": {"total": 0}, "repeat": -1},
    {"match": "cli: which account", "tool_calls": [
        {"name": "ask_user", "arguments": {"question": "Which account?"}}]},
    {"match": "cli: which account", "text": "account 7 owes 42"},
    {"match": "cli: slow", "tool_calls": [
        {"name": "calculator", "arguments": {"expression": "6*7"}}]},
    {"match": "cli: slow", "delay_seconds": 3, "text": "slow but done"},
    {"match": "cli: stuck", "delay_seconds": 30, "text": "too late"},
    {"match": "cli: later", "delay_seconds": 1, "text": "later done"},
    {"match": "cli: interrupted", "delay_seconds": 30, "text": "too late"},
    {"match": "cli: what time", "tool_calls": [
        {"name": "current_time", "arguments": {"timezone": "UTC"}}]},
    {"match": "cli: what time", "text": "it is now"},
    {"text": "done", "repeat": -1},
]  # fmt: skip
FILED = """\
id: filed
description: An agent from a file
instructions: |
  You help {{company}}.
  Be brief.
model: fake
temperature: 0.3
max_iterations: 6
tools: [calculator, category:time]
mode: function_calling
step_timeout_seconds: 30
critic_policy: end
metadata: {team: billing}
output_schema:
  type: object
  properties: {total: {type: number, minimum: 0}}
memory:
  budget_tokens: 3000
  tool_calls: keep
  compaction: drop
"""
DEVELOPMENT_KEY = re.compile(r"AGENTD_API_KEY=(agd_\S+)")


@dataclass
class Served:
    server: ServerProcess
    key: str


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("cli-tasks")
    script = folder / "script.json"
    script.write_text(json.dumps(REPLIES))
    agents = folder / "agents"
    agents.mkdir()
    (agents / "filed.yaml").write_text(FILED)
    env = llm_env("", AGENTD_AUTH="on", AGENTD_CRITIC_POLICY="off",
                  AGENTD_AGENTS_DIR=str(agents), AGENTD_APPROVAL_TOOLS="current_time")  # fmt: skip
    with fake_llm_process(script) as base_url:
        env["AGENTD_LLM_BASE_URL"] = base_url
        with server_process(folder / "server", env) as server:
            key = DEVELOPMENT_KEY.search(server.printed)
            assert key, server.printed
            yield Served(server, key.group(1))


def _env(served: Served, **extra: str) -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "AGENTD_ADDRESS": served.server.address,
            "AGENTD_API_KEY": served.key, **extra}  # fmt: skip


def agentd(
    served: Served, *args: str, stdin: str | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    """The CLI with the server and the key in its environment, as a newcomer sets them."""
    return subprocess.run(
        [sys.executable, "-m", "server.commands.cli", *args], capture_output=True, text=True,
        timeout=60, cwd=ROOT, env=_env(served, **env), input=stdin, check=False,
    )  # fmt: skip


@contextmanager
def running(served: Served, *args: str, address: str = "") -> Iterator[subprocess.Popen[str]]:
    """The CLI as a process of its own, its output read as it comes; killed if still
    running at the end, its pipes closed."""
    where = ["--address", address] if address else []
    command = [sys.executable, "-m", "server.commands.cli", *where, *args]
    with subprocess.Popen(command, cwd=ROOT, env=_env(served), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as process:  # fmt: skip
        try:
            yield process
        finally:
            if process.poll() is None:
                process.kill()


def _lines(out: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.stdout.splitlines()]


def _task_id(out: subprocess.CompletedProcess[str]) -> str:
    first = out.stderr.splitlines()[0]
    assert re.fullmatch(r"task task_[0-9a-f]{24}", first), out.stderr
    return first.split()[1]


def test_exec_says_the_task_id_first_and_takes_every_option(served: Served, tmp_path: Path) -> None:
    conversation = agentd(served, "conversations", "create").stdout.strip()
    context = tmp_path / "context.json"
    context.write_text('{"company": "Acme", "n": 2}')
    options = ["--agent", "filed@1", "--context", f"@{context}", "--label", "team=billing",
               "--label", "env=dev", "--idempotency-key", "order-17", "--conversation",
               conversation]  # fmt: skip
    out = agentd(served, "exec", "cli: labelled", *options, "--follow", "--json")
    assert out.returncode == 0, out.stderr
    task_id = _task_id(out)
    events = _lines(out)  # stdout is JSON lines only
    assert {e["task_id"] for e in events} == {task_id}
    assert [int(e["sequence"]) for e in events] == list(range(1, len(events) + 1))
    assert events[-1]["status_changed"]["current"] == "TASK_STATUS_COMPLETED"

    (task,) = _lines(agentd(served, "task", task_id, "--json"))
    assert task["labels"] == {"team": "billing", "env": "dev"}
    assert (task["agent"], task["conversation_id"]) == ("filed@1", conversation)
    assert task["context"] == {"company": "Acme", "n": 2}
    again = agentd(served, "exec", "cli: labelled", *options, "--json")  # the same key
    assert _task_id(again) == task_id
    inline = agentd(served, "exec", "cli: inline", "--context", '{"a": 1}', "--mode",
                    "function-calling")  # fmt: skip
    assert inline.returncode == 0, inline.stderr
    assert inline.stdout.startswith("#1 ")
    assert f"agentd events {_task_id(inline)} --follow" in inline.stderr
    bad = agentd(served, "exec", "x", "--context", "[1]")
    assert (bad.returncode, bad.stderr) == (2, "error: --context must be a JSON object\n")


def test_tasks_lists_filters_and_pages(served: Served) -> None:
    conversation = agentd(served, "conversations", "create").stdout.strip()
    made = []
    for n, extra in enumerate([[], ["--conversation", conversation], ["--agent", "filed"]]):
        out = agentd(served, "exec", f"cli: list {n}", "--label", "batch=list", *extra,
                     "--follow", "--mode", "function-calling")  # fmt: skip
        assert out.returncode == 0, out.stderr
        made.append(_task_id(out))

    def ids(*args: str) -> list[str]:
        out = agentd(served, "tasks", "--label", "batch=list", *args, "--json")
        assert out.returncode == 0, out.stderr
        return [t["task_id"] for t in _lines(out)]

    assert ids() == made[::-1]
    assert ids("--agent", "filed") == [made[2]]
    assert ids("--agent", "filed@1") == [made[2]]
    assert ids("--conversation", conversation) == [made[1]]
    assert ids("--status", "completed") == made[::-1]
    assert ids("--status", "failed", "--status", "cancelled") == []
    assert ids("--since", "2000-01-01") == made[::-1]  # no zone: UTC
    assert ids("--until", "2000-01-01") == []
    page = agentd(served, "tasks", "--label", "batch=list", "--limit", "2")
    assert [line.split()[0] for line in page.stdout.splitlines()] == made[:0:-1]
    token = re.search(r"--page-token (\S+)", page.stderr)
    assert token, page.stderr
    assert ids("--limit", "2", "--page-token", token.group(1)) == [made[0]]
    assert ids("--limit", "1", "--all") == made[::-1]
    human = agentd(served, "tasks", "--agent", "filed").stdout.split()
    assert human[:2] == [made[2], "completed"]
    assert "filed@1" in human
    bad = agentd(served, "tasks", "--conversation", "nope")
    assert bad.returncode == 1
    assert bad.stderr.startswith("error: INVALID_ARGUMENT")
    assert "conversation_id: is not a conversation id" in bad.stderr


def test_plan_then_exec_the_edited_plan(served: Served, tmp_path: Path) -> None:
    human = agentd(served, "plan", "cli: plan the sums", "--tools", "calculator")
    assert human.returncode == 0, human.stderr
    assert [line.split()[0] for line in human.stdout.splitlines()] == ["s1", "s2", "s3"]
    assert "(after s1)" in human.stdout.splitlines()[2]
    as_json = agentd(served, "plan", "cli: plan the sums", "--tools", "calculator", "--json")
    (plan,) = _lines(as_json)
    del plan["steps"][1]  # a person drops the greeting
    saved = tmp_path / "plan.json"
    saved.write_text(json.dumps(plan))
    run = agentd(served, "exec", "cli: plan the sums", "--tools", "calculator", "--plan",
                 f"@{saved}", "--follow", "--json")  # fmt: skip
    assert run.returncode == 0, run.stderr
    created = [e["plan_created"] for e in _lines(run) if "plan_created" in e]
    assert [[s["id"] for s in c["plan"]["steps"]] for c in created] == [["s1", "s3"]]


def test_input_answers_the_question_a_task_asked(served: Served, tmp_path: Path) -> None:
    asker = tmp_path / "asker.yaml"
    asker.write_text("id: asker\ninstructions: Ask when unsure.\nask_user: true\n")
    assert agentd(served, "agents", "create", str(asker)).returncode == 0
    asking = ["exec", "cli: which account owes?", "--agent", "asker", "--mode",
              "function-calling", "--follow", "--json"]  # fmt: skip
    with running(served, *asking) as process:
        assert process.stdout is not None
        asked: dict[str, Any] = {}
        for line in process.stdout:  # ends: the task waits for the answer, or the stream ends
            event = json.loads(line)
            if "input_requested" in event:
                asked = event
                break
        assert asked["input_requested"]["question"] == "Which account?"
        answer = agentd(served, "input", asked["task_id"],
                        asked["input_requested"]["request_id"], "-", stdin="account 7")  # fmt: skip
        assert answer.returncode == 0, answer.stderr
        assert answer.stdout.startswith(f"answered; task {asked['task_id']} is ")
        rest = [json.loads(line) for line in process.stdout]
        assert process.wait(timeout=30) == 0
    provided = [e["input_provided"] for e in rest if "input_provided" in e]
    assert [p["text"] for p in provided] == ["account 7"]
    assert [e["final_answer"]["text"] for e in rest if "final_answer" in e] == ["account 7 owes 42"]
    wrong = agentd(served, "input", asked["task_id"], "question:nope", "x")
    assert wrong.returncode == 1
    assert "APPROVAL_NOT_PENDING" in wrong.stderr
    ended = agentd(served, "resume", asked["task_id"], "--comment", "try again")
    assert ended.returncode == 1
    assert "FAILED_PRECONDITION TASK_NOT_RESUMABLE" in ended.stderr
    assert "it has ended (completed)" in ended.stderr


def _definition(shown: str) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(shown)
    del data["version"]
    return data


def test_agents_from_the_same_yaml_as_agent_files(served: Served, tmp_path: Path) -> None:
    from_file = agentd(served, "agents", "show", "filed")
    assert from_file.returncode == 0, from_file.stderr
    assert from_file.stdout.startswith("# filed version 1 (file)")
    assert _definition(from_file.stdout) == yaml.safe_load(FILED)

    copy = tmp_path / "copied.yaml"
    copy.write_text(FILED.replace("id: filed", "id: copied"))
    created = agentd(served, "agents", "create", str(copy))
    assert (created.returncode, created.stdout) == (0, "created copied version 1\n")
    shown = agentd(served, "agents", "show", "copied").stdout
    assert shown.startswith("# copied version 1 (api)")
    assert _definition(shown) == {**yaml.safe_load(FILED), "id": "copied"}

    edited = shown.replace("max_iterations: 6", "max_iterations: 9")
    updated = agentd(served, "agents", "update", "-", "--json", stdin=edited)
    assert updated.returncode == 0, updated.stderr
    made = json.loads(updated.stdout)
    assert (made["version"], made["max_iterations"]) == (2, 9)
    listed = agentd(served, "agents", "list").stdout.splitlines()
    assert [line.split()[:3] for line in listed if "copied" in line] == [["copied", "v2", "api"]]
    assert "max_iterations: 6" in agentd(served, "agents", "show", "copied@1").stdout
    assert agentd(served, "agents", "delete", "copied").stdout == "deleted copied\n"
    gone = agentd(served, "agents", "show", "copied")
    assert (gone.returncode, "AGENT_NOT_FOUND" in gone.stderr) == (1, True)
    again = agentd(served, "agents", "create", str(tmp_path / "missing.yaml"))
    assert again.returncode == 2
    assert "cannot read" in again.stderr
    unknown = agentd(served, "agents", "create", "-", stdin="id: x\nmodels: fake\n")
    assert unknown.returncode == 2
    assert unknown.stderr.startswith("error: -: models: unknown key")
    invalid = agentd(served, "agents", "create", "-", stdin="id: Bad Id\n")
    assert invalid.returncode == 1
    assert "INVALID_ARGUMENT" in invalid.stderr


def test_without_a_key_the_error_says_how_to_give_one(served: Served) -> None:
    refused = agentd(served, "tools", AGENTD_API_KEY="")
    assert (refused.returncode, refused.stderr) == (
        1, "error: UNAUTHENTICATED: set AGENTD_API_KEY or pass --api-key\n",
    )  # fmt: skip
    wrong = agentd(served, "tools", "--api-key", "agd_000000000000_nope")
    assert wrong.stderr == (
        "error: UNAUTHENTICATED: the API key was refused; set AGENTD_API_KEY or pass --api-key\n"
    )
    assert agentd(served, "tools", "--json").returncode == 0  # the key from the environment


class Proxy:
    """A TCP proxy on 127.0.0.1 to a server: `cut()` drops the connections it carries (as a
    network or a restart would), `close()` also stops it accepting new ones."""

    def __init__(self, target: str) -> None:
        host, port = target.rsplit(":", 1)
        self._target = (host, int(port))
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.address = f"127.0.0.1:{self._listener.getsockname()[1]}"
        self._open: list[socket.socket] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:  # ends when the listener is closed
            try:
                near, _ = self._listener.accept()
            except OSError:
                return
            far = socket.create_connection(self._target)
            with self._lock:
                self._open += [near, far]
            for source, sink in ((near, far), (far, near)):
                threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):  # ends at EOF or when cut
                sink.sendall(data)
        except OSError:
            return

    def cut(self) -> None:
        with self._lock:
            carried, self._open = self._open, []
        for connection in carried:
            with suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
            connection.close()

    def close(self) -> None:
        with suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        self.cut()


def _start(served: Served, task: str) -> str:
    out = agentd(served, "exec", task, "--mode", "function-calling")
    assert out.returncode == 0, out.stderr
    return _task_id(out)


def test_events_follow_resumes_after_the_stream_is_lost(served: Served) -> None:
    task_id = _start(served, "cli: slow one")
    proxy = Proxy(served.server.address)
    following = ["events", task_id, "--follow", "--retry-delay", "0.2", "--retries", "10",
                 "--json"]  # fmt: skip
    try:
        with running(served, *following, address=proxy.address) as process:
            assert process.stdout is not None
            assert process.stderr is not None
            seen = []
            for line in process.stdout:  # ends once the tool call is done (the model waits)
                seen.append(json.loads(line))
                if "tool_call_finished" in seen[-1]:
                    break
            proxy.cut()
            seen += [json.loads(line) for line in process.stdout]
            assert process.wait(timeout=30) == 0
            said = process.stderr.read()
    finally:
        proxy.close()
    assert "stream lost" in said
    assert [int(e["sequence"]) for e in seen] == list(range(1, len(seen) + 1))  # none twice
    assert seen[-1]["status_changed"]["current"] == "TASK_STATUS_COMPLETED"
    assert [e["final_answer"]["text"] for e in seen if "final_answer" in e] == ["slow but done"]


def test_events_follow_gives_up_after_its_retries(served: Served) -> None:
    task_id = _start(served, "cli: stuck")
    proxy = Proxy(served.server.address)
    following = ["events", task_id, "--follow", "--retry-delay", "0.1", "--retries", "2",
                 "--json"]  # fmt: skip
    try:
        with running(served, *following, address=proxy.address) as process:
            assert process.stdout is not None
            assert process.stderr is not None
            first = json.loads(process.stdout.readline())
            assert first["task_id"] == task_id
            proxy.close()  # the server is gone for good
            assert process.wait(timeout=30) == 1
            said = process.stderr.read()
    finally:
        proxy.close()
    assert said.count("stream lost") == 2
    assert f"gave up after 2 retries: agentd events {task_id} --after" in said
    agentd(served, "cancel", task_id)


def test_events_without_follow_prints_what_there_is_and_ends(served: Served) -> None:
    task_id = _start(served, "cli: later")
    so_far = agentd(served, "events", task_id, "--json")
    assert so_far.returncode == 0, so_far.stderr
    sequences = [int(e["sequence"]) for e in _lines(so_far)]
    assert sequences == list(range(1, len(sequences) + 1))
    rest = agentd(served, "events", task_id, "--after", str(sequences[-1]), "--follow")
    assert rest.returncode == 0, rest.stderr
    assert "stream lost" not in rest.stderr
    shown = [line.split()[1:] for line in rest.stdout.splitlines()]
    if so_far.stdout.count('"completed"') == 0:  # the task ran on after the first call
        assert shown[-1] == ["status_changed", "completed"]
    else:  # it had ended: following after its last event ends at once, and says so by 0
        assert shown == []


def test_following_a_task_that_ended_after_its_last_event_ends_at_once(served: Served) -> None:
    task_id = _start(served, "cli: later")
    done = agentd(served, "events", task_id, "--follow")
    last = done.stdout.splitlines()[-1].split()[0]
    rest = agentd(served, "events", task_id, "--after", last.lstrip("#"), "--follow")
    assert (rest.returncode, rest.stdout, rest.stderr) == (0, "", "")


def test_after_ctrl_c_exec_says_how_to_find_the_task(served: Served) -> None:
    with running(served, "exec", "cli: interrupted", "--follow", "--mode",
                 "function-calling") as process:  # fmt: skip
        assert process.stdout is not None
        assert process.stderr is not None
        task_line = process.stderr.readline()
        assert task_line.startswith("task task_")
        task_id = task_line.split()[1]
        assert process.stdout.readline().startswith("#1 ")
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 130
        said = process.stderr.read()
    assert f"task {task_id} goes on: agentd events {task_id} --follow" in said
    assert "Traceback" not in said
    shown = agentd(served, "task", task_id)
    assert shown.stdout.split()[:2] == [task_id, "running"]
    assert agentd(served, "cancel", task_id).returncode == 0


def test_approve_lets_a_waiting_tool_call_run(served: Served) -> None:
    with running(served, "exec", "cli: what time is it?", "--follow", "--json", "--mode",
                 "function-calling") as process:  # fmt: skip
        assert process.stdout is not None
        asked: dict[str, Any] = {}
        for line in process.stdout:  # ends: the call waits for approval, or the stream ends
            event = json.loads(line)
            if "approval_requested" in event:
                asked = event
                break
        call_id = asked["approval_requested"]["call_id"]
        decided = agentd(served, "approve", asked["task_id"], call_id, "--comment", "ok")
        assert decided.stdout == f"approve: recorded; task {asked['task_id']} continues\n"
        rest = [json.loads(line) for line in process.stdout]
        assert process.wait(timeout=30) == 0
    assert [e["approval_decided"]["call_id"] for e in rest if "approval_decided" in e] == [call_id]
    assert [e["final_answer"]["text"] for e in rest if "final_answer" in e] == ["it is now"]
