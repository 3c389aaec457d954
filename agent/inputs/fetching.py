"""GET one URL under `http_request`'s destination rules: through `GuardedBackend` (which
resolves the host, checks every address and connects to the checked one in one step, so
a DNS answer that changes in between cannot redirect it), within a byte and a time
limit. A2A agent cards are fetched this way (`server.a2a.remote`), and so are a task's
URL input parts (`fetch_part`)."""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from core.errors import DestinationNotAllowedError, FieldViolation, InvalidArgumentError
from core.errors.artifacts import InputPartUnavailableError
from records.parts import InputPart
from records.tools.outcomes import ToolFailed
from tools.builtin.addresses import IPNetwork, refusal
from tools.builtin.http import check_url, guarded_pool, read_capped, timeouts


@dataclass(frozen=True, slots=True)
class Fetched:
    """What a GET answered: its status, its Content-Type and at most limit + 1 bytes of
    its body (more means too long)."""

    status: int
    content_type: str
    body: bytes


async def fetch(
    url: str,
    allowed: Sequence[IPNetwork],
    limit: int,
    seconds: float,
    accept: str = "application/json",
) -> Fetched:
    """GET `url` through `GuardedBackend`. ToolFailed (cannot be reached, timed out, not
    HTTP) or DestinationNotAllowedError (before any connection)."""
    async with (
        guarded_pool(allowed, 1) as pool,
        pool.stream(
            "GET",
            url,
            headers=[("accept", accept), ("accept-encoding", "identity")],
            extensions={"timeout": timeouts(seconds)},
        ) as response,
    ):
        body, _ = await read_capped(response, limit + 1)
        content_type = ""
        for key, value in response.headers:
            if key.lower() == b"content-type":
                content_type = value.decode("latin-1").strip()
        return Fetched(response.status, content_type, body)


def refused_literal(url: str, allowed: Sequence[IPNetwork]) -> DestinationNotAllowedError | None:
    """The refusal of a URL whose host is a literal address the rules refuse (checked
    without resolving or connecting), or None."""
    host = urlsplit(url).hostname or ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None
    why = refusal(address, allowed)
    return DestinationNotAllowedError(host, str(address), why) if why is not None else None


async def fetch_part(
    part: InputPart, index: int, allowed: Sequence[IPNetwork], limit: int, seconds: float
) -> InputPart:
    """A URL part with its content: the URL's answer, its media type the part's or else
    the answer's Content-Type. INVALID_ARGUMENT for a URL that is not http(s);
    DestinationNotAllowedError (PERMISSION_DENIED, naming the part) for a refused
    address, before any connection; InputPartUnavailableError (naming the part) when it
    cannot be fetched, answers with an error status or holds more than `limit` bytes."""
    label = f"parts[{index}] ({part.name})" if part.name else f"parts[{index}]"
    url = check_url(part.source_uri, f"parts[{index}].uri")
    try:
        refused = refused_literal(url, allowed)
        if refused is not None:
            raise refused
        got = await fetch(url, allowed, limit, seconds, accept="*/*")
    except DestinationNotAllowedError as exc:
        exc.metadata["part"] = label
        exc.message = f"{label}: {exc.message}"
        exc.args = (exc.message,)
        raise
    except ToolFailed as exc:
        raise InputPartUnavailableError(label, str(exc)) from None
    if not 200 <= got.status < 300:
        raise InputPartUnavailableError(label, f"{part.source_uri} answered {got.status}")
    if len(got.body) > limit:
        raise InputPartUnavailableError(label, f"the answer is over {limit:,} bytes")
    media_type = part.media_type or got.content_type.split(";", 1)[0].strip().lower()
    if not media_type:
        problem = "is empty and the answer named no Content-Type"
        raise InvalidArgumentError([FieldViolation(f"parts[{index}].media_type", problem)])
    return replace(part, media_type=media_type, data=got.body)
