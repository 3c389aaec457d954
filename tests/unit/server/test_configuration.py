"""Configuration mistakes said plainly: unknown `AGENTD_*` variables (with the nearest
name), and exactly the model settings still missing."""

from __future__ import annotations

import re
import subprocess

import pytest

from clients import cli as client_cli
from server.settings import Settings
from server.settings.environment import OTHER_VARIABLES, setting_variables, unknown_variables
from tests.helpers import ROOT

KNOWN = {*setting_variables(Settings), *client_cli.ENVIRONMENT, *OTHER_VARIABLES}


def test_the_known_variables_come_from_every_settings_field_and_its_aliases() -> None:
    names = setting_variables(Settings)
    assert len(names) >= len(Settings.model_fields)
    assert {"AGENTD_LLM_MODEL", "AGENTD_DATABASE_URL", "AGENTD_ADDRESS"} <= names
    assert {
        "AGENTD_LLM_BASE_URL",
        "OPENAI_BASE_URL",
        "AGENTD_LLM_API_KEY",
        "OPENAI_API_KEY",
    } <= names


@pytest.mark.parametrize(
    ("variable", "nearest"),
    [
        ("AGENTD_LLM_MODLE", "AGENTD_LLM_MODEL"),
        ("AGENTD_DATABSE_URL", "AGENTD_DATABASE_URL"),
        ("AGENTD_LOGLEVEL", "AGENTD_LOG_LEVEL"),
        ("AGENTD_APIKEY", "AGENTD_API_KEY"),  # the client's own
        ("AGENTD_REDIS", "AGENTD_REDIS_URL"),
    ],
)
def test_a_misspelt_variable_is_named_with_the_nearest_known_one(
    variable: str, nearest: str
) -> None:
    assert unknown_variables({variable: "x", "PATH": "/bin"}, KNOWN) == [
        f"{variable} is ignored: agentd reads no such variable; did you mean {nearest}?"
    ]


def test_a_variable_like_nothing_known_is_named_without_a_guess() -> None:
    assert unknown_variables({"AGENTD_FROBNICATE": "1"}, KNOWN) == [
        "AGENTD_FROBNICATE is ignored: agentd reads no such variable"
    ]


def test_known_variables_in_any_case_and_other_prefixes_are_not_warned_of() -> None:
    environ = {
        "AGENTD_LLM_MODEL": "m",
        "agentd_llm_base_url": "http://127.0.0.1:1/v1",  # pydantic-settings reads any case
        "AGENTD_TARGET": "127.0.0.1:50051",
        "AGENTD_API_KEY": "agd_x",
        "AGENTD_REQUIRE_SERVICES": "1",
        "OPENAI_API_KEY": "k",
        "AGENTDX": "not ours",
    }
    assert unknown_variables(environ, KNOWN) == []


def test_every_agentd_variable_read_in_the_tree_is_known() -> None:
    """A variable read with os.environ/getenv anywhere (server, clients, tests, scripts)
    must be known, or its every use would be warned of as a typo."""
    files = subprocess.run(
        ["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    read = re.compile(r"""(?:environ\.get|getenv|environ\[)\(?\s*["'](AGENTD_[A-Z0-9_]+)["']""")
    found = {name for f in files for name in read.findall((ROOT / f).read_text())}
    assert "AGENTD_REQUIRE_SERVICES" in found  # the scan sees reads (tests/conftest.py)
    assert found <= KNOWN, found - KNOWN


@pytest.mark.parametrize(
    ("given", "missing"),
    [
        ({}, ("AGENTD_LLM_MODEL", "ENDPOINT")),
        ({"llm_base_url": "http://127.0.0.1:1/v1"}, ("AGENTD_LLM_MODEL",)),
        ({"llm_api_key": "k"}, ("AGENTD_LLM_MODEL",)),
        ({"llm_model": "m"}, ("ENDPOINT",)),
        ({"llm_model": "m", "llm_base_url": "http://127.0.0.1:1/v1"}, ()),
        ({"llm_model": "m", "llm_api_key": "k"}, ()),  # OpenAI's own endpoint
    ],
)
def test_the_missing_model_settings_are_exactly_those_this_configuration_lacks(
    given: dict[str, str], missing: tuple[str, ...]
) -> None:
    endpoint = (
        "either AGENTD_LLM_BASE_URL (or OPENAI_BASE_URL) or AGENTD_LLM_API_KEY (or OPENAI_API_KEY)"
    )
    expected = tuple(endpoint if name == "ENDPOINT" else name for name in missing)
    assert Settings.model_validate(given).missing_llm_settings() == expected


def test_the_openai_variables_count_as_the_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    assert Settings().missing_llm_settings() == ("AGENTD_LLM_MODEL",)


def test_serve_knows_the_client_s_variables_without_importing_the_client() -> None:
    from clients.cli import ENVIRONMENT
    from server.commands.cli import CLIENT_VARIABLES

    assert set(CLIENT_VARIABLES) == set(ENVIRONMENT)
