from __future__ import annotations

from datetime import UTC, datetime

import pytest

from core.errors import InvalidArgumentError
from core.identity import CallContext
from tools.builtin.clock import CurrentTime
from tools.builtin.json_query import JsonQuery

FIXED = datetime(2026, 7, 1, 12, 30, 15, tzinfo=UTC)


async def test_current_time_in_zones(ctx: CallContext) -> None:
    tool = CurrentTime(now=lambda: FIXED)
    utc = await tool.run({}, ctx)
    assert utc.data["iso"] == "2026-07-01T12:30:15+00:00"
    assert utc.data["weekday"] == "Wednesday"
    assert utc.data["unix"] == FIXED.timestamp()
    tokyo = await tool.run({"timezone": "Asia/Tokyo"}, ctx)
    assert tokyo.data["time"] == "21:30:15"
    assert tokyo.data["utc_offset"] == "+09:00"
    assert tokyo.data["utc_offset_seconds"] == 9 * 3600
    ny = await tool.run({"timezone": "America/New_York"}, ctx)
    assert ny.data["utc_offset"] == "-04:00"  # daylight saving time in July
    assert ny.data["abbreviation"] == "EDT"


async def test_current_time_uses_the_real_clock_by_default(ctx: CallContext) -> None:
    before = datetime.now(UTC).timestamp()
    out = await CurrentTime().run({}, ctx)
    assert before <= out.data["unix"] <= datetime.now(UTC).timestamp()


@pytest.mark.parametrize("zone", ["Mars/Olympus", "../../etc/passwd", "/etc/localtime", "UTC\x00"])
async def test_current_time_refuses_unknown_zones(ctx: CallContext, zone: str) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        await CurrentTime().run({"timezone": zone}, ctx)
    assert info.value.field_violations[0].field == "arguments.timezone"


async def test_json_query_on_data_and_on_strings(ctx: CallContext) -> None:
    tool = JsonQuery()
    people = {"people": [{"name": "ada", "age": 36}, {"name": "alan", "age": 41}]}
    out = await tool.run({"data": people, "expression": "people[?age > `40`].name"}, ctx)
    assert out.data == {"result": ["alan"]}
    assert out.text == '["alan"]'
    out = await tool.run({"data": '{"a": {"b": [1, 2, 3]}}', "expression": "a.b[-1]"}, ctx)
    assert out.data == {"result": 3}
    missing = await tool.run({"data": {}, "expression": "nope"}, ctx)
    assert missing.data == {"result": None}


async def test_json_query_reports_bad_input_per_field(ctx: CallContext) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        await JsonQuery().run({"data": "{not json", "expression": "a"}, ctx)
    assert info.value.field_violations[0].field == "arguments.data"
    with pytest.raises(InvalidArgumentError) as info:
        await JsonQuery().run({"data": {}, "expression": "a[?"}, ctx)
    assert info.value.field_violations[0].field == "arguments.expression"
