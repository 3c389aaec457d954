"""`agentd kb ...` and `agentd memory list|search|forget` against a real server process
whose embeddings come from `agentd fake-llm`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.contract.test_knowledge_bases import MARKDOWN, PDF_TEXT, tiny_pdf
from tests.helpers import AGENTD_COMMAND, ROOT, fake_llm_process, llm_env, server_process


def test_kb_and_memory_commands(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text("[]")
    (tmp_path / "returns.md").write_bytes(MARKDOWN)
    (tmp_path / "warranty.pdf").write_bytes(tiny_pdf(PDF_TEXT))
    env = llm_env(
        "",
        AGENTD_EMBEDDING_MODEL="fake-embedding",
        AGENTD_KNOWLEDGE_CHUNK_TOKENS="20",
        AGENTD_KNOWLEDGE_CHUNK_OVERLAP="4",
        AGENTD_KNOWLEDGE_SCORE_THRESHOLD="0.3",
        AGENTD_KNOWLEDGE_ADMIN_ROLES="approver",  # the anonymous caller's (auth off)
    )
    with fake_llm_process(script) as base_url:
        env["AGENTD_LLM_BASE_URL"] = base_url
        with server_process(tmp_path / "server", env) as server:

            def agentd(*args: str) -> subprocess.CompletedProcess[str]:
                return subprocess.run(
                    [*AGENTD_COMMAND, "--address", server.address, *args],
                    capture_output=True, text=True, timeout=60, cwd=ROOT, check=False,
                )  # fmt: skip

            assert agentd("kb", "create", "policies", "--name", "Policies").stdout == "policies\n"
            assert agentd("kb", "list").stdout == "policies  Policies\n"
            md = agentd("kb", "add", "policies", str(tmp_path / "returns.md"))
            assert md.returncode == 0, md.stderr
            pdf = agentd("--json", "kb", "add", "policies", str(tmp_path / "warranty.pdf"))
            added = json.loads(pdf.stdout)
            assert added["media_type"] == "application/pdf"
            docs = agentd("kb", "docs", "policies").stdout.splitlines()
            assert [line.split()[-1] for line in docs] == ["returns.md", "warranty.pdf"]
            found = agentd("kb", "search", "policies", "How long is the X200 router warranty?")
            assert found.stdout.splitlines()[0].split()[1] == f"{added['document_id']}#0"
            refused = agentd("kb", "add", "policies", str(script))
            assert refused.returncode == 1
            assert "media_type" in refused.stderr
            queued = agentd(
                "--json", "kb", "add", "policies", str(tmp_path / "returns.md"),
                "--background", "--external-id", "returns",
            )  # fmt: skip
            assert queued.returncode == 0, queued.stderr
            background = json.loads(queued.stdout)
            assert background["state"] == "DOCUMENT_STATE_INGESTING"
            job_id = background["ingestion_job_id"]
            for _ in range(100):
                job = agentd("kb", "job", job_id)
                if "SUCCEEDED" in job.stdout:
                    break
            assert job.returncode == 0, job.stderr
            assert job.stdout.split()[:2] == [job_id, "SUCCEEDED"]
            jobs = agentd("kb", "jobs", "policies").stdout.splitlines()
            assert len(jobs) == 3
            assert jobs[-1].startswith(f"{job_id}  SUCCEEDED")
            assert agentd("kb", "job", "ing_nothing").returncode == 1
            gone = agentd("kb", "rm-doc", added["document_id"])
            assert gone.stdout.startswith(f"deleted {added['document_id']}")
            assert agentd("kb", "delete", "policies").returncode == 0
            assert (
                agentd("kb", "list").stdout
                == "no knowledge bases (make one: agentd kb create ID)\n"
            )

            assert agentd("memory", "list").stdout == "no memories of yours\n"
            assert agentd("memory", "search", "colour").returncode == 0
            assert agentd("memory", "forget", "--yes").stdout == "forgot 0 memories\n"
