"""What the RPC handlers share: required ids."""

from __future__ import annotations

from core.errors import FieldViolation, InvalidArgumentError

MAX_ID_LENGTH = 128


def required_id(value: str, field: str) -> str:
    """`value`, or INVALID_ARGUMENT naming `field` when it is empty or too long."""
    if not value:
        raise InvalidArgumentError([FieldViolation(field, "is required")])
    if len(value) > MAX_ID_LENGTH:
        raise InvalidArgumentError(
            [FieldViolation(field, f"is longer than {MAX_ID_LENGTH} characters")]
        )
    return value
