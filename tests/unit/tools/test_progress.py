"""Progress a built-in tool reports (`tools.progress.report`): heard by whoever runs the
call, checked, and counted as liveness for the tool's timeout where the tool says so."""

from __future__ import annotations

import asyncio
import math
from dataclasses import replace

import pytest

from core.identity import CallContext, Principal
from records.tools.model import JSONValue, PermissionLevel, RiskLevel, Tool, ToolOutput, ToolSpec
from records.tools.outcomes import ToolErrorKind
from stores.audit.memory import InMemoryAuditLog
from tools import progress
from tools.permissions import LevelPolicy
from tools.progress import Progress
from tools.registry import ToolRegistry
from tools.toolsets import http_progress

SPEC = ToolSpec(
    name="crunch",
    description="works in steps, reporting each",
    parameters={"type": "object", "properties": {}},
    category="test",
    permission=PermissionLevel.READ,
    risk=RiskLevel.LOW,
    idempotent=True,
    timeout_seconds=0.3,
)


class Crunch(Tool):
    """Works `steps` steps of `seconds` each, reporting progress after each (or not)."""

    def __init__(self, steps: int, seconds: float, reports: bool = True, **changes: object):
        self.spec = replace(SPEC, **changes)  # type: ignore[arg-type]
        self.steps, self.seconds, self.reports = steps, seconds, reports

    async def run(self, arguments: dict[str, JSONValue], context: CallContext) -> ToolOutput:
        for done in range(1, self.steps + 1):
            await asyncio.sleep(self.seconds)
            if self.reports:
                progress.report(done, self.steps, f"step {done}")
        return ToolOutput(data={"steps": self.steps}, text="crunched")


async def _call(tool: Tool, heard: list[Progress]) -> object:
    registry = ToolRegistry(
        [tool], policy=LevelPolicy(PermissionLevel.WRITE), audit=InMemoryAuditLog()
    )
    context = CallContext(Principal("someone", "default"), "0" * 32)
    with progress.listening(heard.append):
        return await registry.call("crunch", {}, context)


async def test_reports_reach_the_listener_in_order() -> None:
    heard: list[Progress] = []
    result = await _call(Crunch(3, 0.01), heard)
    assert result.ok  # type: ignore[attr-defined]
    assert heard == [Progress(float(n), 3.0, f"step {n}") for n in (1, 2, 3)]


async def test_progress_keeps_alive_a_tool_that_says_so() -> None:
    """0.6 s of work under a 0.3 s timeout, reporting every 0.1 s: it finishes."""
    heard: list[Progress] = []
    result = await _call(Crunch(6, 0.1, progress_keeps_alive=True), heard)
    assert result.ok, result.error  # type: ignore[attr-defined]
    assert len(heard) == 6


@pytest.mark.parametrize(
    ("reports", "keeps_alive", "message"),
    [
        (True, False, "did not finish within 0.3 s"),
        (False, True, "went 0.3 s without reporting progress"),
    ],
)
async def test_otherwise_the_timeout_ends_it(
    reports: bool, keeps_alive: bool, message: str
) -> None:
    tool = Crunch(6, 0.1, reports=reports, progress_keeps_alive=keeps_alive)
    result = await _call(tool, [])
    assert result.error.kind is ToolErrorKind.TIMEOUT  # type: ignore[attr-defined]
    assert message in result.error.message  # type: ignore[attr-defined]


def test_reports_outside_a_call_go_nowhere() -> None:
    progress.report(1, 2, "nobody listens")  # no error


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ((1, 10, "ok"), Progress(1.0, 10.0, "ok")),
        ((2, None, None), Progress(2.0, None, "")),
        ((3, -1, "x" * 600), Progress(3.0, None, "x" * 500)),
        ((3, math.inf, ""), Progress(3.0, None, "")),
        ((-1, 10, ""), None),
        ((math.nan, 10, ""), None),
        (("3", 10, ""), None),
        ((True, 10, ""), None),
    ],
)
def test_untrusted_reports_are_checked(raw: tuple[object, ...], expected: Progress | None) -> None:
    assert progress.checked(*raw) == expected


@pytest.mark.parametrize(
    ("line", "report"),
    [
        (b'{"progress": 2, "total": 4, "message": "half"}', Progress(2.0, 4.0, "half")),
        (b'  {"progress": 1}\r', Progress(1.0, None, "")),
        (b'{"progress": 1, "result": 5}', None),  # another key: part of the answer
        (b'{"parts": 3}', None),
        (b"not json", None),
        (b'{"progress": "lots"}', "dropped"),  # a report, but nonsense: not passed on
    ],
)
def test_json_lines_of_progress_are_told_from_the_answer(
    line: bytes, report: Progress | str | None
) -> None:
    heard: list[Progress] = []
    with progress.listening(heard.append):
        was_report = http_progress._reported(line)
    assert was_report == (report is not None)
    assert heard == ([report] if isinstance(report, Progress) else [])
