"""The names that reach stores and audit records: principals, tenants, roles, tools.

Each is checked where it enters (a JWT's claims, a key's creation, a request's
field), so that no store ever sees a name it cannot keep whole: a name longer
than a column would be cut and could then equal another tenant's, and a NUL or
a lone surrogate fails the write it is part of.
"""

from __future__ import annotations

import re

MAX_NAME_LENGTH = 128
"""The longest principal, tenant, role or tool name (the width of their columns)."""
MAX_ROLES = 32

_IDENTITY = re.compile(r"[A-Za-z0-9._:@|+/-]+")
"""Principals, tenants and roles: e-mail addresses, `auth0|123`, service accounts
(`system:serviceaccount:ns:name`), GUIDs and URN-style names all fit."""
_TOOL = re.compile(r"[A-Za-z0-9._-]+")

IDENTITY_CHARACTERS = "letters, digits and . _ : @ | + / -"
TOOL_CHARACTERS = "letters, digits and . _ -"


def identity_problem(value: object) -> str | None:
    """Why `value` cannot be a principal, tenant or role; None when it can."""
    return _problem(value, _IDENTITY, IDENTITY_CHARACTERS)


def tool_name_problem(value: object) -> str | None:
    """Why `value` cannot be a tool's name; None when it can."""
    return _problem(value, _TOOL, TOOL_CHARACTERS)


def roles_problem(roles: object) -> str | None:
    """Why `roles` is not a list of at most MAX_ROLES role names; None when it is."""
    if not isinstance(roles, list | tuple):
        return "is not a list of strings"
    if len(roles) > MAX_ROLES:
        return f"has more than {MAX_ROLES} roles"
    for role in roles:
        problem = identity_problem(role)
        if problem is not None:
            return f"holds a role that {problem}"
    return None


def _problem(value: object, pattern: re.Pattern[str], characters: str) -> str | None:
    if not isinstance(value, str) or not value:
        return "is not a non-empty string"
    if len(value) > MAX_NAME_LENGTH:
        return f"is longer than {MAX_NAME_LENGTH} characters"
    if pattern.fullmatch(value) is None:
        return f"may hold only {characters}"
    return None
