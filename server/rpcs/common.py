"""What the RPC handlers share: required ids."""

from __future__ import annotations

from core.errors import FieldViolation, InvalidArgumentError

MAX_ID_LENGTH = 128


def required_id(value: str, field: str, longest: int = MAX_ID_LENGTH) -> str:
    """`value`, or INVALID_ARGUMENT naming `field` when it is empty or longer than
    `longest` characters."""
    if not value:
        raise InvalidArgumentError([FieldViolation(field, "is required")])
    if len(value) > longest:
        raise InvalidArgumentError([FieldViolation(field, f"is longer than {longest} characters")])
    return value
