"""`current_time`: the current date and time in any IANA time zone."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from core.errors import FieldViolation, InvalidArgumentError
from core.identity import CallContext
from records.tools.model import JSONValue, PermissionLevel, RiskLevel, Tool, ToolOutput, ToolSpec


class CurrentTime(Tool):
    spec = ToolSpec(
        name="current_time",
        description=(
            "Return the current date and time in an IANA time zone such as 'Europe/Paris' "
            "or 'America/New_York' (default UTC), with the UTC offset, weekday and Unix time."
        ),
        parameters={
            "type": "object",
            "properties": {
                "timezone": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 64,
                    "default": "UTC",
                    "description": "IANA time zone name, e.g. 'Asia/Tokyo'.",
                }
            },
            "additionalProperties": False,
        },
        category="time",
        permission=PermissionLevel.NONE,
        risk=RiskLevel.LOW,
        idempotent=True,
        timeout_seconds=2.0,
    )

    def __init__(self, now: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self._now = now

    async def run(self, arguments: dict[str, JSONValue], context: CallContext) -> ToolOutput:
        name = str(arguments.get("timezone", "UTC"))
        try:
            zone = ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: 'America' is a folder
            raise InvalidArgumentError(
                [FieldViolation("arguments.timezone", f"unknown time zone {name!r}")]
            ) from None
        now = self._now().astimezone(zone)
        offset = now.utcoffset()
        data = {
            "timezone": name,
            "iso": now.isoformat(),
            "date": now.date().isoformat(),
            "time": now.time().replace(microsecond=0).isoformat(),
            "weekday": now.strftime("%A"),
            "utc_offset": now.strftime("%z")[:3] + ":" + now.strftime("%z")[3:],
            "utc_offset_seconds": int(offset.total_seconds()) if offset is not None else 0,
            "abbreviation": now.tzname() or "",
            "unix": now.timestamp(),
        }
        return ToolOutput(data=data, text=f"{now.isoformat()} ({name}, {data['weekday']})")
