"""`agentd fake-llm --provider NAME=SCRIPT`: one process serving several providers."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import httpx

from tests.helpers import FAKE_LLM_URL, ROOT, fake_llm_with_banner, run_agentd

PROVIDER_LINE = re.compile(r"^provider (\S+): fake OpenAI-compatible server on (\S+) playing")


def _ask(base_url: str) -> str:
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    reply = httpx.post(f"{base_url}/chat/completions", json=body, timeout=10).json()
    return str(reply["choices"][0]["message"]["content"])


def test_one_fake_llm_serves_several_providers_each_its_own_script(tmp_path: Path) -> None:
    main, beta = tmp_path / "main.json", tmp_path / "beta.json"
    main.write_text(json.dumps([{"text": "from main", "repeat": -1}]))
    beta.write_text(json.dumps([{"text": "from beta", "repeat": -1}]))
    command = [sys.executable, "-m", "server.commands.cli", "fake-llm", "--script", str(main),
               "--port", "0", "--provider", f"beta={beta}@0"]  # fmt: skip
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        first = FAKE_LLM_URL.search(process.stdout.readline())
        second = PROVIDER_LINE.match(process.stdout.readline())
        assert first is not None
        assert second is not None
        assert second.group(1) == "beta"
        assert second.group(2) != first.group(1)
        assert _ask(first.group(1)) == "from main"
        assert _ask(second.group(2)) == "from beta"
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=10)
        if process.stdout is not None:
            process.stdout.close()
    assert process.returncode == 0


def test_a_bad_provider_spec_is_one_line_and_exit_2(tmp_path: Path) -> None:
    script = tmp_path / "main.json"
    script.write_text("[]")
    done = run_agentd(tmp_path, "fake-llm", "--script", str(script), "--port", "0",
                      "--provider", "beta")  # fmt: skip
    assert done.returncode == 2
    assert "expected NAME=SCRIPT or NAME=SCRIPT@PORT" in done.stderr


def test_a_declared_context_window_refuses_what_does_not_fit(tmp_path: Path) -> None:
    script = tmp_path / "main.json"
    script.write_text(json.dumps([{"text": "fits", "repeat": -1}]))
    with fake_llm_with_banner(script, "--context-window", "100") as (url, _):
        small = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 10}
        assert httpx.post(f"{url}/chat/completions", json=small, timeout=10).status_code == 200
        large = {**small, "messages": [{"role": "user", "content": "x" * 400}]}
        refused = httpx.post(f"{url}/chat/completions", json=large, timeout=10)
        assert refused.status_code == 400
        error = refused.json()["error"]
        assert error["code"] == "context_length_exceeded"
        assert "maximum context length is 100 tokens" in error["message"]
