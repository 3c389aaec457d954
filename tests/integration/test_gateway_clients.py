"""The Go and Java gateway examples (clients/go, clients/java), built with the machine's
toolchains from the committed generated code, against a real `agentd serve` with the
fake model: streams, resume, a deadline that ends the call and not the task, a silent
approval wait under keepalive pings, errors decoded, health (Check, Watch, grpc-go's
client-side health checking)."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers import (
    ROOT,
    ServerProcess,
    fake_llm_process,
    llm_env,
    missing_commands,
    server_process,
)

SCRIPT = [
    {"match": "\nwrote ", "text": "The report is written.", "repeat": -1},
    {"match": "write the report", "repeat": -1,
     "tool_calls": [{"name": "write_file",
                     "arguments": {"path": "report.txt", "content": "all good"}}]},
    {"match": "slowly", "delay_seconds": 5, "text": "Slowly: 6*7 is 42.", "repeat": -1},
    {"match": "\n42", "text": "6*7 is 42.", "repeat": -1},
    {"match": "what is 6*7", "repeat": -1,
     "tool_calls": [{"name": "calculator", "arguments": {"expression": "6*7"}}]},
]  # fmt: skip
LANGUAGES = [pytest.param("go", marks=pytest.mark.go), pytest.param("java", marks=pytest.mark.java)]


@dataclass(frozen=True)
class Example:
    binary: Path
    build_output: str


def _build(language: str, out: Path) -> Example:
    built = subprocess.run(
        [str(ROOT / "clients" / language / "build.sh"), str(out)],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert built.returncode == 0, built.stdout + built.stderr
    return Example(out / "agentdexample", built.stdout + built.stderr)


def buildable() -> list[str]:
    """The examples to build: those whose whole toolchain is here, or both when CI requires
    every suite (`AGENTD_REQUIRE_SERVICES=1`: a missing tool then fails the build)."""
    required = os.environ.get("AGENTD_REQUIRE_SERVICES") == "1"
    return [lang for lang in ("go", "java") if required or not missing_commands(lang)]


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Example]:
    """The examples this machine can build, built once (side by side: the builds take most
    of the time). A language left out has its tests skipped by its marker, and named."""
    wanted = buildable()
    with ThreadPoolExecutor(2) as pool:
        futures = {
            lang: pool.submit(_build, lang, tmp_path_factory.mktemp(f"{lang}-build"))
            for lang in wanted
        }
        return {lang: future.result() for lang, future in futures.items()}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    folder = tmp_path_factory.mktemp("gateway")
    script = folder / "script.json"
    script.write_text(json.dumps(SCRIPT))
    env = {
        "AGENTD_APPROVAL_TOOLS": "write_file",
        "AGENTD_HEARTBEAT_SECONDS": "300",  # the approval wait stays truly silent
        "AGENTD_RATE_LIMITS": "ListTasks=3/m",
    }
    with (
        fake_llm_process(script) as base_url,
        server_process(folder, {**llm_env(base_url), **env}) as process,
    ):
        yield process


def run(example: Example, served: ServerProcess, *args: str, timeout: float = 60) -> dict[str, str]:
    done = subprocess.run(
        [str(example.binary), "-target", served.address, *args],
        capture_output=True, text=True, timeout=timeout, check=False,
    )  # fmt: skip
    lines = [line.partition("=") for line in done.stdout.splitlines() if "=" in line]
    seen: dict[str, str] = {}
    for key, _, value in lines:
        seen[key] = f"{seen[key]}\n{value}" if key in seen else value
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    return seen


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_example_builds_cleanly(examples: dict[str, Example], language: str) -> None:
    assert examples[language].binary.exists()


@pytest.mark.parametrize("language", LANGUAGES)
def test_stream_shows_the_whole_log_in_order(
    examples: dict[str, Example], served: ServerProcess, language: str
) -> None:
    seen = run(examples[language], served, "stream")
    sequences = [int(line.split()[0]) for line in seen["event"].splitlines()]
    assert sequences == list(range(1, len(sequences) + 1))
    assert seen["tool"] == "calculator result=42"
    assert seen["answer"] == "6*7 is 42."
    assert seen["status"] == "COMPLETED"


@pytest.mark.parametrize("language", LANGUAGES)
def test_resume_after_a_drop_gives_every_event_exactly_once(
    examples: dict[str, Example], served: ServerProcess, language: str
) -> None:
    seen = run(examples[language], served, "resume")
    assert seen["dropped_after"] == "3"
    assert seen["exactly_once"] == "true"
    assert int(seen["events"]) > 3


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_one_second_deadline_ends_the_call_not_the_task(
    examples: dict[str, Example], served: ServerProcess, language: str
) -> None:
    seen = run(examples[language], served, "deadline")
    assert seen["stream"] == "DEADLINE_EXCEEDED"
    assert seen["task"] == "COMPLETED"
    assert seen["answer"] == "Slowly: 6*7 is 42."


@pytest.mark.parametrize("language", LANGUAGES)
def test_errors_are_decoded_from_their_details(
    examples: dict[str, Example], served: ServerProcess, language: str
) -> None:
    seen = run(examples[language], served, "errors")
    call_tool = seen["call_tool"].split()
    assert call_tool[:2] == ["InvalidArgument", "http=400"]
    assert "reason=TOOL_ARGUMENTS_INVALID" in call_tool
    assert {"field=arguments.expression", "field=arguments.unexpected"} <= set(call_tool)
    assert seen["get_task"].split()[:3] == ["NotFound", "http=404", "reason=TASK_NOT_FOUND"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_rate_limit_carries_retry_info(
    examples: dict[str, Example], served: ServerProcess, language: str
) -> None:
    limited = run(examples[language], served, "rate-limit")["rate_limited"].split()
    assert limited[:3] == ["ResourceExhausted", "http=429", "reason=RATE_LIMITED"]
    assert limited[3].startswith("retry_after=")
    assert float(limited[3].removeprefix("retry_after=").removesuffix("s")) > 0


@pytest.mark.parametrize("language", LANGUAGES)
def test_health_check_and_watch(
    examples: dict[str, Example], served: ServerProcess, language: str
) -> None:
    assert run(examples[language], served, "health")["health"] == "SERVING"
    assert run(examples[language], served, "health-watch")["watch"] == "SERVING"


@pytest.mark.go
def test_grpc_go_client_side_health_checking(
    examples: dict[str, Example], served: ServerProcess
) -> None:
    seen = run(examples["go"], served, "health-client")
    assert seen["health_checked_call"].startswith("OK tools=")


@pytest.fixture(scope="module")
def approval_waits(
    examples: dict[str, Example], served: ServerProcess
) -> dict[str, Future[dict[str, str]]]:
    """Every built example's silent approval wait, run at once (so the suite waits once)."""
    pool = ThreadPoolExecutor(max(len(examples), 1))
    waits = {
        lang: pool.submit(run, example, served, "approval-wait", timeout=150)
        for lang, example in examples.items()
    }
    pool.shutdown(wait=False)
    return waits


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_silent_approval_wait_survives_keepalive_pings(
    approval_waits: dict[str, Future[dict[str, str]]], language: str
) -> None:
    """60 s without a message on the stream while the client pings every 10 s."""
    seen = approval_waits[language].result()
    assert seen["approval_requested"] == "write_file"
    assert seen["status"] == "COMPLETED"
    assert int(seen["silent_seconds"]) >= 60
