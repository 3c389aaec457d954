"""The `search_knowledge` tool in a real task: passages come back with their citations
(document, chunk, score) as data; a question the documents do not answer gets nothing
above the threshold, and the model is told to say so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from google.protobuf.json_format import MessageToDict

from core.identity import Principal
from records.keys import new_key
from tests.contract.test_knowledge_bases import HTML, MARKDOWN, PDF_TEXT, tiny_pdf
from tests.integration.harness import final, of_kind
from tests.integration.trust import trusted


def search(query: str) -> dict[str, Any]:
    return {
        "tool_calls": [
            {"name": "search_knowledge", "arguments": {"query": query, "knowledge_base": "support"}}
        ]
    }


async def test_search_knowledge_cites_its_sources_and_finds_nothing_off_topic(
    tmp_path: Path,
) -> None:
    replies = [
        search("How many months is the X200 router warranty?"),
        {"text": "24 months [warranty#0]"},
        search("Which penguin species breed on Antarctic sea ice?"),
        {"text": "The knowledge base does not answer this."},
    ]
    settings = {
        "embedding_model": "fake-embedding",
        "embedding_dimensions": 256,
        "knowledge_score_threshold": 0.3,
        "knowledge_chunk_tokens": 20,
        "knowledge_chunk_overlap": 4,
    }
    async with trusted(tmp_path, replies, **settings) as t:
        key, plaintext = new_key("acme", "svc", ("member",))
        await t.server.durable.api_keys.add(key)
        await t.grant("acme", "role:member", "search_knowledge", "read")
        feature = t.server.memory
        assert feature is not None
        assert feature.bases is not None
        admin = Principal("ops", "acme", ("admin",))
        await feature.bases.create(admin, "support", "")  # searches see catalogued documents
        ids = {}
        for name, content, media in (
            ("returns", MARKDOWN, "text/markdown"),
            ("shipping", HTML, "text/html"),
            ("warranty", tiny_pdf(PDF_TEXT), "application/pdf"),
        ):
            added = await feature.bases.add_document(admin, "support", content, media, name)
            ids[name] = added.document_id
        client = t.running.client(api_key=plaintext, timeout=20)

        events = [e async for e in client.execute("warranty?", tools=["search_knowledge"])]
        result = MessageToDict(of_kind(events, "tool_call_finished")[0])["result"]
        citation = result["passages"][0]["citation"]
        assert citation["document_id"] == ids["warranty"]
        assert citation["chunk_index"] == 0
        assert citation["knowledge_base_id"] == "support"
        assert citation["score"] >= 0.3
        sent = json.dumps(t.llm.requests[-1]["messages"])
        assert "<knowledge>" in sent
        assert f"[{ids['warranty']}#0]" in sent
        assert final(events).text == "24 months [warranty#0]"

        events = [e async for e in client.execute("penguins?", tools=["search_knowledge"])]
        result = MessageToDict(of_kind(events, "tool_call_finished")[0])["result"]
        assert result["passages"] == []
        assert "does not answer this" in json.dumps(t.llm.requests[-1]["messages"])
