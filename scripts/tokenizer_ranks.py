"""Put OpenAI's BPE ranks (o200k_base, cl100k_base) where agentd counts tokens with them.

    python scripts/tokenizer_ranks.py [--source node_modules/js-tiktoken] [--to var/tiktoken]
                                      [--best-effort]

tiktoken downloads its rank files from OpenAI on first use, which agentd never
does. The npm package js-tiktoken (pinned in package.json, installed by `make`)
ships the same ranks in a compact form; this script writes them back in
tiktoken's file format, named as tiktoken's cache names them (so the folder also
serves as TIKTOKEN_CACHE_DIR), and keeps a file only when its SHA-256 is the one
tiktoken requires: byte for byte OpenAI's. Files already in place and valid are
left alone. Exits 1 when a file cannot be made; with --best-effort (what `make run`,
`make demo` and `make bench` use, which need no npm) it exits 0 and says nothing:
the server says once that counts are estimated when its model needs the ranks (a
demo's model never does), and the benchmarks say which figures they skipped.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agent.llm.window.encodings import SOURCES, EncodingSource  # noqa: E402


def tiktoken_file(ranks_js: Path) -> bytes:
    """js-tiktoken's `export default {"bpe_ranks": "! <first rank> <token> <token> ..."}`
    (a line per run of consecutive ranks, tokens in base64) as a .tiktoken file."""
    text = ranks_js.read_text(encoding="utf-8").strip()
    text = text.removeprefix("export default").strip().removesuffix(";")
    compact = json.loads(text)["bpe_ranks"]
    lines: list[bytes] = []
    for line in compact.split("\n"):
        if not line:
            continue
        _, first, *tokens = line.split(" ")
        start = int(first)
        lines.extend(f"{token} {start + n}\n".encode() for n, token in enumerate(tokens))
    return b"".join(lines)


def valid(path: Path, source: EncodingSource) -> bool:
    return path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == source.sha256


class RanksUnavailableError(Exception):
    """A rank file could not be made (the reason is the message)."""


def place(source: EncodingSource, js_folder: Path, target: Path) -> str:
    path = target / source.cache_name
    if valid(path, source):
        return f"{source.name}: in place ({path})"
    ranks_js = js_folder / "dist" / "ranks" / f"{source.name}.js"
    if not ranks_js.is_file():
        raise RanksUnavailableError(f"{ranks_js} is missing: run `make setup` (needs npm) first")
    data = tiktoken_file(ranks_js)
    digest = hashlib.sha256(data).hexdigest()
    if digest != source.sha256:
        raise RanksUnavailableError(
            f"{source.name}: the ranks of {ranks_js} hash to {digest}, not to OpenAI's "
            f"{source.sha256}; nothing written"
        )
    target.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    partial.write_bytes(data)
    os.replace(partial, path)
    return f"{source.name}: written ({path}, {len(data)} bytes, sha256 verified)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=ROOT / "node_modules" / "js-tiktoken")
    parser.add_argument("--to", type=Path, default=ROOT / "var" / "tiktoken")
    parser.add_argument(
        "--best-effort",
        action="store_true",
        help="when the ranks cannot be made, say that tokens will be estimated and exit 0",
    )
    args = parser.parse_args(argv)
    try:
        done = [place(source, args.source, args.to) for source in SOURCES.values()]
    except RanksUnavailableError as error:
        if not args.best_effort:
            print(error, file=sys.stderr)
            return 1
        return 0  # said where it matters, once: by the server, by the benchmarks
    if not args.best_effort:
        print("\n".join(done))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
