"""Token saving: what URL placeholders take off tool results before the model sees them.

The fixture is what search and API tools typically return: JSON lists of results,
each with a long tracking-laden link, and the same links again in prose. Every
figure comes from the one run: characters and tokens (agentd's estimate, about
four characters per token) with and without placeholders, and a check that
restoring the placeholders gives the exact original back.
"""

from __future__ import annotations

import json
import math

from agent.running.urls import UrlBook

SITES = ("docs.example.com", "news.example.org", "shop.example.net", "api.example.io")


def _result(n: int) -> dict[str, object]:
    site = SITES[n % len(SITES)]
    return {
        "title": f"Result {n}: how agents call tools over gRPC",
        "url": (
            f"https://{site}/articles/2026/11/{n:04d}/agents-and-grpc-gateways"
            f"?utm_source=search&utm_medium=api&utm_campaign=q4&ref=agentd&session={n:08x}"
        ),
        "snippet": "A gateway starts tasks, streams their events and resumes a broken stream.",
    }


def fixture() -> list[str]:
    """Tool results: 20 search results as JSON, then a page of prose citing them."""
    results = [_result(n) for n in range(20)]
    prose = " ".join(f"See {r['url']} for part {i}." for i, r in enumerate(results[:10]))
    return [json.dumps(results), prose]


def _tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


def main() -> None:
    texts = fixture()
    book = UrlBook(60, token="0b3e70b3e70b")
    shortened = [book.shorten(t) for t in texts]
    exact = all(book.restore(s) == t for s, t in zip(shortened, texts, strict=True))
    before = sum(len(t) for t in texts)
    after = sum(len(s) for s in shortened)
    tokens_before = sum(_tokens(t) for t in texts)
    tokens_after = sum(_tokens(s) for s in shortened)
    per_url = sum(len(u) for u in book.urls.values()) / len(book.urls)
    placeholder = sum(len(p) for p in book.urls) / len(book.urls)
    print("URL placeholders in tool results (20 search results as JSON + prose citing 10)")
    print(
        f"  characters  {before:,} -> {after:,}  saved {before - after:,} "
        f"({(before - after) / before:.0%})"
    )
    saved = tokens_before - tokens_after
    print(
        f"  tokens (estimate, 4 chars/token)  {tokens_before:,} -> {tokens_after:,}  "
        f"saved {saved:,} ({saved / tokens_before:.0%})"
    )
    print(f"  per URL  {per_url:.0f} -> {placeholder:.0f} characters")
    print(f"  restored exactly: {'yes' if exact else 'NO'}")
    if not exact:
        raise SystemExit("URL placeholders did not restore the exact text")


if __name__ == "__main__":
    main()
