"""Secrets in the toolsets file: they come from the environment (`${VAR}`), never from
the file itself.

`expand` replaces each `${NAME}` by the value of the environment variable NAME (a
variable that is not set refuses the field). `written_out` says whether a value as
written in the file holds a secret: any credential-shaped text (`core.secrets`), or
any literal text at all in the value of a header or variable whose name says it is
secret (`Authorization`, `X-Api-Key`, `NOTES_TOKEN`) beyond a scheme word such as
`Bearer`. Neither ever puts the value in its message.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from core.secrets import scrub, secret_key

REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]{0,127})\}")
_SCHEME_WORDS = re.compile(r"^(?i:bearer|basic|token|apikey|api-key|key)?\s*$")


class UnsetVariableError(ValueError):
    """An `${NAME}` whose variable is not set."""

    def __init__(self, name: str) -> None:
        super().__init__(f"environment variable {name} is not set")
        self.name = name


def expand(value: str, environ: Mapping[str, str] | None = None) -> str:
    """`value` with every `${NAME}` replaced by that variable's value; UnsetVariableError
    if one is not set."""
    env = os.environ if environ is None else environ

    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in env:
            raise UnsetVariableError(name)
        return env[name]

    return REFERENCE.sub(one, value)


def written_out(key: str, value: str) -> bool:
    """Whether `value`, the file's text for `key`, holds a secret written out."""
    literal = REFERENCE.sub("", value)
    if scrub(literal) != literal:
        return True
    if secret_key(key):
        # Under a secret-looking name only a reference (and a scheme word) may stand.
        return not REFERENCE.search(value) or not _SCHEME_WORDS.match(literal)
    return False


def credential_shaped(value: str) -> bool:
    """Whether free text (a description, an argument, a URL) holds something shaped like a
    credential."""
    literal = REFERENCE.sub("", value)
    return scrub(literal) != literal
