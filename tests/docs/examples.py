"""The examples of the README and of every docs/*.md page, as the docs tests run them.

A fenced block is an example when its language is `sh`, `console` or `python`; each is
run by a test unless the line before its fence says why not:

    <!-- not-run: a reference of every command's syntax (placeholders) -->

A walk-through (a page's blocks that go on from one another: agents made in one, a
task of theirs run in the next) marks each of its blocks on the line before the fence:

    <!-- walk-through: teams -->

tests/docs/test_walkthroughs.py runs them, in the page's order, against a server of
their own, as a newcomer would after `make demo`; the other blocks run on their own.

Blocks in other languages are data (json, yaml, text, a tree) and are not run; a `go`,
`java` or `bash` block (code no test here runs) needs the marker too. A shell block is
either a transcript, whose commands start with `$ ` and are followed by what they print
(checked: the words and numbers shown must appear in that order; `…` stands for
anything), or a script run whole with `bash -e`. Either runs in a folder of its own
holding `.venv` and `docs` (as the checkout's root does), against a server started as
the quickstart starts it (`agentd serve --demo`, with A2A on: docs/a2a.md's examples run
too), with AGENTD_ADDRESS, AGENTD_API_KEY and H (the authorization header) set:
`127.0.0.1:50051` reads as that server's address and `127.0.0.1:8080` as its A2A HTTP
address, and the lines that start a server (settings before them allowed) or export its
key (`make demo`, `make run`, `export AGENTD_API_KEY=agd_…`) are what the test did
itself. The rules are in docs/README.md for whoever writes a page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tests.helpers import ROOT

RUN = {"sh", "console", "python"}
NEED_MARKER = {"bash", "shell", "go", "java", "javascript", "ts"}
NOT_RUN = re.compile(r"^<!--\s*not-run:\s*(\S.*?)\s*-->\s*$")
WALKTHROUGH = re.compile(r"^<!--\s*walk-through:\s*([a-z0-9-]+)\s*-->\s*$")
FENCE = re.compile(r"^(`{3,})([^`\s]*)\s*$")
ELLIPSIS = "…"


@dataclass(frozen=True)
class Block:
    """One fenced block of a Markdown page."""

    page: str
    """The page, relative to the repository (README.md, docs/x.md)."""
    line: int
    """The line of its opening fence (1-based)."""
    language: str
    code: str
    not_run: str
    """The reason its marker gives ("" when it has none)."""
    walkthrough: str = ""
    """The walk-through it is a part of ("" when none)."""

    @property
    def name(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def example(self) -> bool:
        return self.language in RUN or self.language in NEED_MARKER


def pages() -> list[Path]:
    """Every page whose examples are run: the READMEs and each docs/*.md."""
    return [ROOT / "README.md", ROOT / "clients" / "python" / "README.md",
            *sorted((ROOT / "docs").glob("*.md"))]  # fmt: skip


def blocks_of(text: str, page: str) -> list[Block]:
    found: list[Block] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        end = index + 1
        while end < len(lines) and lines[end].rstrip() != opening.group(1):
            end += 1
        previous = lines[index - 1] if index else ""
        marker = NOT_RUN.match(previous)
        walk = WALKTHROUGH.match(previous)
        code = "\n".join(lines[index + 1 : end]) + "\n"
        found.append(
            Block(
                page,
                index + 1,
                opening.group(2),
                code,
                marker.group(1) if marker else "",
                walk.group(1) if walk else "",
            )
        )
        index = end + 1
    return found


def all_blocks() -> list[Block]:
    return [
        block
        for path in pages()
        for block in blocks_of(path.read_text(), str(path.relative_to(ROOT)))
    ]


# Transcripts ---------------------------------------------------------------------------

SERVER_LINES = re.compile(
    r"^\s*(?:(?:AGENTD_\w+=\S+\s+)*(?:make (?:demo|run)|\.venv/bin/agentd serve --demo"
    r"|agentd serve --demo)|export AGENTD_API_KEY=agd_…)(?:\s+#.*)?$"
)
"""Lines a test does itself before running a block: start the server, export its key."""


@dataclass(frozen=True)
class Step:
    command: str
    expected: str
    """What the transcript shows it printing ("" to check nothing)."""


def transcript(code: str) -> list[Step] | None:
    """The commands and shown outputs of a block written as a transcript, else None."""
    lines = code.splitlines()
    if not any(line.startswith("$ ") for line in lines):
        return None
    steps: list[Step] = []
    command: list[str] = []
    output: list[str] = []
    for line in lines:
        if line.startswith("$ ") or (command and not output and command[-1].endswith("\\")):
            if line.startswith("$ ") and command:
                steps.append(Step("\n".join(command), "\n".join(output)))
                command, output = [], []
            command.append(line.removeprefix("$ "))
        else:
            output.append(line)
    if command:
        steps.append(Step("\n".join(command), "\n".join(output)))
    return steps


TOKEN = re.compile(r"[^\s{}\[\](),:\"']+")


def _matches(expected: str, actual: str) -> bool:
    if ELLIPSIS not in expected and expected != "...":
        return expected == actual
    pattern = ".*".join(re.escape(part) for part in re.split(r"…|\.\.\.", expected))
    return re.fullmatch(pattern, actual) is not None


def _runs(words: list[str]) -> list[list[str]]:
    """The words between the gaps (`…` or `...` alone), each run in order."""
    runs: list[list[str]] = [[]]
    for word in words:
        if word in (ELLIPSIS, "..."):
            runs.append([])
        else:
            runs[-1].append(word)
    return [run for run in runs if run]


def _run_at(run: list[str], have: list[str], start: int) -> bool:
    return start + len(run) <= len(have) and all(
        _matches(word, have[start + n]) for n, word in enumerate(run)
    )


def shown_in(expected: str, actual: str) -> str:
    """ "" when `actual` shows what `expected` does: its words and numbers in the same
    order, `…` (or `...`) standing for any run of them and for any part of one; else
    the first expected word not found where it should be. The words between two gaps
    are found together, at the first place they all follow one another (so a run that
    begins with a common word, `#…` or `agent`, is not held to that word's first
    occurrence)."""
    want: list[str] = TOKEN.findall(expected)
    have: list[str] = TOKEN.findall(actual)
    position = 0  # the output may begin with anything (a task id line, a warning)
    for run in _runs(want):
        start = next((at for at in range(position, len(have) + 1) if _run_at(run, have, at)), None)
        if start is None:
            return _first_missing(run, have, position)
        position = start + len(run)
    return ""


def _first_missing(run: list[str], have: list[str], position: int) -> str:
    """The word of `run` that the best attempt from `position` fails at."""
    best = 0
    for at in range(position, len(have)):
        matched = 0
        while at + matched < len(have) and matched < len(run):
            if not _matches(run[matched], have[at + matched]):
                break
            matched += 1
        best = max(best, matched)
    return run[min(best, len(run) - 1)]


# Running shell blocks ------------------------------------------------------------------

DEFAULT_ADDRESS = "127.0.0.1:50051"
DEFAULT_A2A_HTTP_ADDRESS = "127.0.0.1:8080"
"""The A2A HTTP address docs/a2a.md's examples start the server with."""
SERVED_ENV = {
    "AGENTD_A2A": "true",
    "AGENTD_A2A_HTTP_ADDRESS": "127.0.0.1:0",
    "AGENTD_HTTP_DOORS": "a2a,mcp,openai",  # docs/mcp-server.md's and openai.md's examples run
}
"""The settings of the server the examples run against, over the quickstart's."""


@dataclass(frozen=True)
class Served:
    """The server the examples run against."""

    address: str
    key: str
    a2a_http: str = DEFAULT_A2A_HTTP_ADDRESS
    """Its A2A HTTP address (host:port)."""


A2A_HTTP = re.compile(r'"json_rpc": "http://([^/"]+)/')


def a2a_http_address(log: str) -> str:
    """The A2A HTTP address the server's start-up line ("A2A is on") names."""
    found = [A2A_HTTP.search(line) for line in log.splitlines() if '"A2A is on"' in line]
    [said] = found
    assert said is not None, log
    return said.group(1)


def shell_env(served: Served) -> dict[str, str]:
    return {
        "PATH": f"{ROOT / '.venv' / 'bin'}:/usr/bin:/bin",
        "HOME": str(ROOT / "var"),
        "AGENTD_ADDRESS": served.address,
        "AGENTD_API_KEY": served.key,
        "H": f"authorization: Bearer {served.key}",
    }


def _runnable(code: str, served: Served) -> str:
    kept = [line for line in code.splitlines() if not SERVER_LINES.match(line)]
    runnable = "\n".join(kept).replace(DEFAULT_ADDRESS, served.address)
    return runnable.replace(DEFAULT_A2A_HTTP_ADDRESS, served.a2a_http) + "\n"


def _bash(code: str, served: Served, folder: Path) -> tuple[int, str]:
    import subprocess

    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", code], cwd=folder, env=shell_env(served),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60, check=False,
    )  # fmt: skip
    return done.returncode, done.stdout


def problems(block: Block, served: Served, folder: Path) -> list[str]:
    """What is wrong when `block` runs in `folder` against `served` (nothing: [])."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in (".venv", "docs"):  # as at the checkout's root
        if not (folder / name).exists():
            (folder / name).symlink_to(ROOT / name)
    steps = transcript(block.code)
    if steps is None:
        status, printed = _bash(_runnable(block.code, served), served, folder)
        return [] if status == 0 else [f"{block.name}: exit {status}:\n{printed[-3000:]}"]
    found: list[str] = []
    for step in steps:
        status, printed = _bash(_runnable(step.command, served), served, folder)
        failing = step.expected.lstrip().startswith("ERROR")
        if (status != 0) != failing:
            found.append(f"{block.name}: `{step.command}` exit {status}:\n{printed[-3000:]}")
            continue
        missing = shown_in(step.expected, printed)
        if missing:
            found.append(
                f"{block.name}: `{step.command}` printed no {missing!r} where the page "
                f"shows it:\n{printed[-3000:]}"
            )
    return found
