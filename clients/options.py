"""What the command line's options hold: the global ones (given before or after the
command), JSON given inline or as @file, labels, and times."""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from decimal import Decimal, localcontext
from importlib import metadata
from pathlib import Path
from typing import Any

from agentd_client.environment import API_KEY_VARIABLE, default_api_key, default_target

MAX_FILE_BYTES = 1024 * 1024
"""The largest file an option may name with @file."""
MICROS = 1_000_000
"""Micro-units in one unit of a currency: agentd counts money in millionths."""
LARGEST = 2**63 - 1
"""The largest amount a request carries (int64); the server takes less (its message says)."""
_WHOLE = re.compile(r"[0-9]+")
_DECIMAL = re.compile(r"[0-9]+(\.[0-9]*)?|\.[0-9]+")


class OptionError(ValueError):
    """An option's value cannot be used; the message says which and why."""


def version() -> str:
    """`agentd X.Y.Z`, from the installed distribution's metadata."""
    try:
        return f"agentd {metadata.version('agentd')}"
    except metadata.PackageNotFoundError:
        return "agentd (not installed: version unknown)"


def add_global_options(parser: argparse.ArgumentParser, *, top: bool) -> None:
    """The options every command takes. On the top parser they carry the defaults; on a
    command's parser they are set only when given there (after the command), so that
    `agentd --json tasks` and `agentd tasks --json` mean the same."""

    def default(value: Any) -> Any:
        return value if top else argparse.SUPPRESS

    parser.add_argument(
        "--address",
        default=default(None),
        help="server host:port (default: $AGENTD_ADDRESS, else 127.0.0.1:50051)",
    )
    parser.add_argument(
        "--api-key", default=default(None), help=f"API key (default: ${API_KEY_VARIABLE})"
    )
    parser.add_argument(
        "--timeout", type=float, default=default(30.0), help="seconds per call (not streams)"
    )
    parser.add_argument(
        "--json", action="store_true", default=default(False), help="print JSON, one per line"
    )


def command_parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """Every command's (and subcommand's) parser under `parser`, once each."""
    seen: set[int] = set()
    pending = [parser]
    while pending:  # ends: a tree of parsers, each visited once
        current = pending.pop()
        for action in current._actions:
            if isinstance(action, argparse._SubParsersAction):
                for child in action.choices.values():
                    if id(child) not in seen:
                        seen.add(id(child))
                        pending.append(child)
                        yield child


def resolve_globals(args: argparse.Namespace) -> None:
    """Fill in what the environment gives for options not given."""
    args.address = args.address or default_target()
    if args.api_key is None:
        args.api_key = default_api_key()


def json_value(text: str, option: str) -> Any:
    """The JSON `option` holds, inline or read from the file named after an @."""
    if text.startswith("@"):
        path = Path(text[1:])
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                raise OptionError(f"{option}: {path} is larger than {MAX_FILE_BYTES} bytes")
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise OptionError(f"{option}: cannot read {path}: {error}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise OptionError(f"{option} is not valid JSON: {error}") from None


def json_object(text: str, option: str) -> dict[str, Any]:
    """The JSON object `option` holds (inline or @file)."""
    value = json_value(text, option)
    if not isinstance(value, dict):
        raise OptionError(f"{option} must be a JSON object")
    return value


def labels(pairs: Sequence[str] | None, option: str = "--label") -> dict[str, str]:
    """KEY=VALUE pairs as a mapping."""
    found: dict[str, str] = {}
    for pair in pairs or ():
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise OptionError(f"{option} {pair!r} is not KEY=VALUE")
        found[key] = value
    return found


def utc_moment(text: str | None, option: str) -> datetime | None:
    """An ISO 8601 date or time from the command line; without a zone it is UTC."""
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise OptionError(
            f"{option} {text!r} is not an ISO 8601 date or time "
            "(e.g. 2026-11-26, 2026-11-26T09:30, 2026-11-26T09:30+01:00)"
        ) from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def tokens(text: str, option: str) -> int:
    """A whole number of tokens, written with digits only."""
    if not _WHOLE.fullmatch(text.strip()):
        raise OptionError(f"{option} {text!r} is not a whole number of tokens")
    return _in_range(int(text), text, option)


def micros(text: str, option: str) -> int:
    """An amount of money written as a decimal number of the currency (`12.50`), as exact
    micro-units (12500000): at most 6 decimals, no sign, no exponent. Decimal, never a
    float, so that `0.1` is 100000 and not a hair off it."""
    text = text.strip()
    if not _DECIMAL.fullmatch(text):
        raise OptionError(f"{option} {text!r} is not an amount such as 12.50")
    with localcontext() as exact:
        exact.prec = len(text) + 7  # every digit given, and 6 more places: never rounded
        amount = Decimal(text) * MICROS
    if amount != amount.to_integral_value():
        raise OptionError(f"{option} {text!r} has more than 6 decimals (agentd counts millionths)")
    return _in_range(int(amount), text, option)


def _in_range(amount: int, text: str, option: str) -> int:
    if amount > LARGEST:
        raise OptionError(f"{option} {text!r} is too large")
    return amount
