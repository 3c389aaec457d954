"""Secrets in the toolsets file: they come from the environment (`${VAR}`), never from
the file itself.

`expand` replaces each `${NAME}` by the value of the environment variable NAME (a
variable that is not set refuses the field). `written_out` says whether a value as
written in the file holds a secret: any credential-shaped text (`core.secrets`), or
any literal text at all in the value of a header or variable whose name says it is
secret (`Authorization`, `X-Api-Key`, `NOTES_TOKEN`, `PGPASSWORD`) beyond a scheme word
such as `Bearer`; `secret_args` finds the same in a server's arguments (`--api-key
VALUE`). `warnings` finds what may be a secret (a literal under `DB_PASS` or `X-Auth`, a
long random piece of a URL's path, a secret passed on a command line even by `${VAR}`,
which shows in /proc/<pid>/cmdline): those are used, and said. Nothing here ever puts
a value in its message.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal
from urllib.parse import urlsplit

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


_STRONG_ENDINGS = (
    "PASSWORD",
    "PASSWD",
    "PASSPHRASE",
    "SECRET",
    "TOKEN",
    "APIKEY",
    "ACCESSKEY",
    "SECRETKEY",
    "PRIVATEKEY",
    "CREDENTIAL",
    "CREDENTIALS",
)
_WEAK_WORDS = ("PASS", "PWD", "AUTH", "KEY", "TOKEN", "SECRET", "CREDENTIAL", "COOKIE")
_NOT_THE_SECRET = {
    "file",
    "path",
    "dir",
    "env",
    "var",
    "name",
    "id",
    "url",
    "type",
    "mode",
    "header",
    "length",
    "size",
    "min",
    "max",
}
"""Last words of a flag that names where a secret is, not the secret (`--password-file`)."""
_RANDOM_SEGMENT = re.compile(r"^[A-Za-z0-9_-]{20,}$")

Secrecy = Literal["", "weak", "strong"]


def secret_name(key: str) -> Secrecy:
    """ "strong" for a name that says its value is a secret (`password`, `X-Api-Key`, and
    names ending so: `PGPASSWORD`), "weak" for one that may hold one (`DB_PASS`,
    `X-Auth`, `SIGNING_KEY_ID`), "" for any other."""
    letters = re.sub(r"[^A-Z0-9]", "", key.upper())
    if secret_key(key) or letters.endswith(_STRONG_ENDINGS):
        return "strong"
    return "weak" if any(word in letters for word in _WEAK_WORDS) else ""


def _literal(value: str) -> bool:
    """Whether `value` holds text of the file's own beyond references and a scheme word."""
    return not REFERENCE.search(value) or not _SCHEME_WORDS.match(REFERENCE.sub("", value))


def written_out(key: str, value: str) -> bool:
    """Whether `value`, the file's text for `key`, holds a secret written out."""
    if credential_shaped(value):
        return True
    # Under a secret-looking name only a reference (and a scheme word) may stand.
    return secret_name(key) == "strong" and _literal(value)


def secret_args(args: Sequence[str]) -> list[tuple[int, Secrecy | Literal["cmdline"]]]:
    """The arguments that pass a secret after a flag whose name says so (`--api-key VALUE`,
    `--token=VALUE`): each value's index and how sure that is ("strong", "weak"), or
    "cmdline" for a `${VAR}`, which is no secret of the file but shows in the process
    list all the same."""
    found: list[tuple[int, Secrecy | Literal["cmdline"]]] = []
    for i, arg in enumerate(args):
        flag, equals, value = arg.lstrip("-").partition("=")
        words = re.split(r"[-_]", flag.lower())
        if not arg.startswith("-") or words[-1] in _NOT_THE_SECRET:
            continue
        secrecy = secret_name(flag)
        if not secrecy:
            continue
        if not equals:
            if i + 1 == len(args) or args[i + 1].startswith("-"):
                continue
            i, value = i + 1, args[i + 1]
        found.append((i, secrecy if REFERENCE.sub("", value).strip() else "cmdline"))
    return found


def random_path(url: str) -> bool:
    """Whether the URL's path has a long random-looking piece (a token in a webhook's
    path, say)."""
    return any(
        _RANDOM_SEGMENT.match(piece)
        and len(set(piece)) >= 10
        and any(c.isdigit() for c in piece)
        and any(c.isalpha() for c in piece)
        for piece in urlsplit(REFERENCE.sub("", url)).path.split("/")
    )


MAYBE_SECRET = (
    "may hold a secret written out in the file (used all the same); if it is one, put it "
    "in an environment variable and write ${VARIABLE}"
)
ON_COMMAND_LINE = (
    "passes a secret on the server's command line, where any local user can read it "
    "(/proc/<pid>/cmdline); prefer a variable of the server's `env:`"
)


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def warnings(body: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(field, why) of everything in a toolset that may be a secret but is not refused."""
    mcp, http, tools = (_mapping(body.get(key)) for key in ("mcp", "http", "tools"))
    maps = [
        ("mcp.env", mcp.get("env")),
        ("mcp.headers", mcp.get("headers")),
        ("http.headers", http.get("headers")),
    ]
    urls = [("mcp.url", mcp.get("url"))]
    for name, tool in tools.items():
        maps.append((f"tools.{name}.headers", _mapping(tool).get("headers")))
        urls.append((f"tools.{name}.url", _mapping(tool).get("url")))
    found = [
        (f"{where}.{key}", MAYBE_SECRET)
        for where, values in maps
        for key, value in _mapping(values).items()
        if isinstance(value, str) and secret_name(str(key)) == "weak" and _literal(value)
    ]
    found.extend(
        (where, MAYBE_SECRET) for where, url in urls if isinstance(url, str) and random_path(url)
    )
    args = mcp.get("args")
    for i, secrecy in secret_args([str(a) for a in args] if isinstance(args, list) else []):
        if secrecy != "strong":
            why = ON_COMMAND_LINE if secrecy == "cmdline" else MAYBE_SECRET
            found.append((f"mcp.args[{i}]", why))
    return found


def credential_shaped(value: str) -> bool:
    """Whether free text (a description, an argument, a URL) holds something shaped like a
    credential."""
    literal = REFERENCE.sub("", value)
    return scrub(literal) != literal
