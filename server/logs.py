"""Structured logging: one JSON object per line on stderr (or readable lines for people)."""

from __future__ import annotations

import logging
import sys

import structlog

from core.secrets import redact


def redact_secrets(
    logger: object, method: str, event: structlog.typing.EventDict
) -> structlog.typing.EventDict:
    """No API key, bearer token, JWT or configured secret pattern reaches a log line."""
    redacted: structlog.typing.EventDict = redact(event)
    return redacted


# Tracebacks without local variables: a frame's locals hold request headers, URLs with
# credentials and passwords, and no pattern catches every shape of them.
_TRACEBACKS = structlog.processors.ExceptionRenderer(
    structlog.tracebacks.ExceptionDictTransformer(show_locals=False)
)


def configure(level: str = "info", fmt: str = "json") -> None:
    numeric = logging.getLevelName(level.upper())
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer()
        if fmt == "json"
        else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            _TRACEBACKS,
            redact_secrets,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )
