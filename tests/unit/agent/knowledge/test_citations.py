"""Citations come from the built-in search_knowledge tool's data alone: malformed entries
are skipped, one citation per chunk (its best score), best first, bounded."""

from __future__ import annotations

from agent.running.citations import MAX_CITATIONS, SNIPPET_CHARS, citations_of, merged
from records import serialization
from records.tasks import Citation, Task


def passage(document: str, chunk: int, score: float, text: str = "t") -> dict[str, object]:
    cited = {"knowledge_base_id": "kb", "document_id": document, "chunk_index": chunk,
             "score": score}  # fmt: skip
    return {"text": text, "citation": cited}


def test_citations_are_read_from_the_tool_s_passages_and_bad_entries_skipped() -> None:
    data = {
        "passages": [
            passage("doc_a", 0, 0.9, "x" * 500),
            {"text": "no citation"},
            {"citation": {"document_id": "doc_b"}},  # fields missing
            {"citation": {**passage("doc_c", 0, 0.5)["citation"], "chunk_index": "two"}},  # type: ignore[dict-item]
            "not a passage",
        ]
    }
    found = citations_of(data)
    assert found == [Citation("kb", "doc_a", 0, 0.9, "x" * SNIPPET_CHARS)]
    nothings: list[object] = [None, "text", {"passages": "no"}, {}, []]
    for nothing in nothings:
        assert citations_of(nothing) == []


def test_merged_keeps_each_chunk_once_with_its_best_score_best_first() -> None:
    cites = [
        Citation("kb", "doc_a", 0, 0.4),
        Citation("kb", "doc_b", 1, 0.8),
        Citation("kb", "doc_a", 0, 0.6),
        Citation("kb", "doc_a", 1, 0.5),
    ]
    assert merged(cites) == (
        Citation("kb", "doc_b", 1, 0.8),
        Citation("kb", "doc_a", 0, 0.6),
        Citation("kb", "doc_a", 1, 0.5),
    )
    many = [Citation("kb", "doc", n, n / 1000) for n in range(MAX_CITATIONS + 10)]
    assert len(merged(many)) == MAX_CITATIONS


def test_a_task_s_citations_survive_its_json_form() -> None:
    task = Task("task_1", "acme", "alice", "q", citations=(Citation("kb", "doc", 2, 0.7, "s"),))
    assert serialization.loads(serialization.dumps(task)).citations == task.citations
