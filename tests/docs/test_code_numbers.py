"""Numbers the pages take from the code say what the code says.

A page that names a setting's default beside it, as `AGENTD_X` (15), `AGENTD_X` (1 MiB),
`AGENTD_X` (default 1 h) or 5 s (`AGENTD_X`), must name the settings classes' default:
docs/gateways.md once gave the keepalive minimum as 10 s where the code (and every other
page) said 5. docs/settings.md, written from the code by `make docs`, is checked by
test_reference_pages. A parenthesis that says more than a number ("5 here: ...", an
overlay's own value) is not a default and is not read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import AliasChoices

from server.settings import Settings
from tests.docs import examples
from tests.helpers import ROOT

NUMBER = r"(\d[\d,]*(?:\.\d+)?)(?:\s*(s|ms|min|h|KiB|MiB|GiB))?"
BESIDE = re.compile(rf"`(AGENTD_[A-Z0-9_]+)`\s*\((?:default\s+)?{NUMBER}(?:\s+by default)?\)")
BEFORE = re.compile(rf"{NUMBER}\s*\(`(AGENTD_[A-Z0-9_]+)`\)")
SCALE = {"": 1, "s": 1, "min": 60, "h": 3600, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3}


@dataclass(frozen=True)
class Mention:
    page: str
    line: int
    variable: str
    value: float
    text: str


def defaults() -> dict[str, float | None]:
    """Each variable a setting is read from, and the setting's default (None: no number)."""
    prefix = str(Settings.model_config.get("env_prefix", ""))
    found: dict[str, float | None] = {}
    for name, field in Settings.model_fields.items():
        alias = field.validation_alias
        names = (
            [c for c in alias.choices if isinstance(c, str)]
            if isinstance(alias, AliasChoices)
            else [alias if isinstance(alias, str) else prefix + name]
        )
        default = field.get_default(call_default_factory=True)
        number = isinstance(default, int | float) and not isinstance(default, bool)
        for variable in names:
            found[variable.upper()] = float(default) if number else None
    return found


def _value(number: str, unit: str | None, variable: str) -> float:
    if unit == "ms":  # only a setting counted in milliseconds is named in them
        assert variable.endswith("_MS"), f"{variable} is not in milliseconds"
        return float(number.replace(",", ""))
    return float(number.replace(",", "")) * SCALE[unit or ""]


def mentions_in(text: str, page: str) -> list[Mention]:
    found: list[Mention] = []
    for pattern, parts in ((BESIDE, (1, 2, 3)), (BEFORE, (3, 1, 2))):
        for match in pattern.finditer(text):
            variable, number, unit = (match.group(i) for i in parts)
            line = text.count("\n", 0, match.start()) + 1
            value = _value(number, unit, variable)
            found.append(Mention(page, line, variable, value, match.group(0)))
    return found


def mentions() -> list[Mention]:
    return [
        mention
        for path in examples.pages()
        if path.name != "settings.md"
        for mention in mentions_in(path.read_text(), str(path.relative_to(ROOT)))
    ]


def test_every_default_a_page_names_beside_its_setting_is_the_codes() -> None:
    known = defaults()
    wrong = [
        f"{m.page}:{m.line}: {m.text} but the default is {known.get(m.variable, 'no setting')}"
        for m in mentions()
        if known.get(m.variable) != m.value
    ]
    assert wrong == []


def test_the_keepalive_minimum_is_named_with_its_number_where_gateways_read_it() -> None:
    pages = {m.page for m in mentions() if m.variable == "AGENTD_KEEPALIVE_MIN_PING_SECONDS"}
    assert pages >= {"docs/gateways.md", "docs/deploy.md"}


def test_the_reader_reads_each_form_and_catches_a_wrong_number() -> None:
    text = (
        "`AGENTD_HEARTBEAT_SECONDS` (15), `AGENTD_MAX_MESSAGE_BYTES` (16 MiB),\n"
        "`AGENTD_RETENTION_SECONDS` (default 1 h), every 10 s\n"
        "(`AGENTD_KEEPALIVE_MIN_PING_SECONDS`), `AGENTD_WORKSPACE_MAX_FILES` (10,000 by default),"
        " `AGENTD_SHUTDOWN_DELAY_SECONDS` (5 here: an overlay's own)"
    )
    read = [(m.variable, m.value, m.line) for m in mentions_in(text, "page.md")]
    assert read == [
        ("AGENTD_HEARTBEAT_SECONDS", 15, 1),
        ("AGENTD_MAX_MESSAGE_BYTES", 16 * 1024**2, 1),
        ("AGENTD_RETENTION_SECONDS", 3600, 2),
        ("AGENTD_WORKSPACE_MAX_FILES", 10_000, 3),
        ("AGENTD_KEEPALIVE_MIN_PING_SECONDS", 10, 2),
    ]
    known = defaults()
    assert [v for v, value, _ in read if known[v] != value] == ["AGENTD_KEEPALIVE_MIN_PING_SECONDS"]


README_IN_PROSE = re.compile(r"\bREADME\b")
CODE_SPAN = re.compile(r"`[^`\n]*`")
LINK_TEXT = re.compile(r"\[[^\]]*\]\([^)\s]*\)")


def prose_mentions_of_the_readme(text: str) -> list[int]:
    """Lines that name the README outside a link (and outside code)."""
    found: list[int] = []
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            fenced = not fenced
            continue
        if not fenced and README_IN_PROSE.search(LINK_TEXT.sub("", CODE_SPAN.sub("", line))):
            found.append(number)
    return found


def test_pages_name_a_readme_section_only_by_a_link() -> None:
    """A section named in prose (README *Capacity*) goes stale unseen when it moves; a
    link is checked (test_every_link_of_every_page_leads_somewhere). docs/README.md, the
    page about the README and the docs, is the exception."""
    pages = [p for p in sorted((ROOT / "docs").glob("*.md")) if p.name != "README.md"]
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in pages
        for line in prose_mentions_of_the_readme(path.read_text())
    ]
    assert found == []
    assert prose_mentions_of_the_readme("see README *Capacity*\n[the README](../README.md)") == [1]
