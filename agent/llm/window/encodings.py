"""OpenAI's tokenizers (tiktoken), loaded offline from a folder of BPE ranks.

tiktoken downloads its rank files on first use; agentd never does. The ranks of
o200k_base and cl100k_base are put in a folder in tiktoken's own cache layout (a
file named by the SHA-1 of its download address, so the same folder also serves
as `TIKTOKEN_CACHE_DIR`) by `scripts/tokenizer_ranks.py`, which `make` runs; a
file is used only when its SHA-256 is the one tiktoken expects, i.e. when it is
byte for byte OpenAI's. Without the files, or for a model of no OpenAI encoding,
tokens are estimated (`agent.llm.window.tokens`). The server checks them right after it
starts serving (`Encodings.load`, off the event loop), builds its model's encoding then,
and says once whether counts are exact or estimated.

tiktoken is never asked for an encoding by name (`tiktoken.get_encoding`,
`tiktoken.encoding_for_model`): those download the ranks when the cache lacks
them. An `Encoding` is built here from the verified bytes of the file alone, so
no code path can reach the network.
"""

from __future__ import annotations

import base64
import hashlib
import threading
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

import structlog

from agent.llm.window.tokens import ESTIMATE, TokenCounter

log = structlog.get_logger(__name__)

HINT = "make setup (needs npm: scripts/tokenizer_ranks.py builds the ranks from js-tiktoken)"


@dataclass(frozen=True, slots=True)
class EncodingSource:
    name: str
    url: str
    """Where tiktoken downloads the ranks from (the cache file is named by its SHA-1)."""
    sha256: str
    """What tiktoken requires the file to hash to."""
    pattern: str
    special_tokens: dict[str, int]

    @property
    def cache_name(self) -> str:
        return hashlib.sha1(self.url.encode()).hexdigest()


_O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
_CL100K_PATTERN = r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""  # noqa: E501

SOURCES = {
    "o200k_base": EncodingSource(
        "o200k_base",
        "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        _O200K_PATTERN,
        {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
    ),
    "cl100k_base": EncodingSource(
        "cl100k_base",
        "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        _CL100K_PATTERN,
        {
            "<|endoftext|>": 100257,
            "<|fim_prefix|>": 100258,
            "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260,
            "<|endofprompt|>": 100276,
        },
    ),
}
"""The encodings agentd counts exactly; their patterns and special tokens are tiktoken's
(`tiktoken_ext.openai_public`)."""

_O200K_PREFIXES = (
    "gpt-4o",
    "chatgpt-4o",
    "gpt-4.1",
    "gpt-4.5",
    "gpt-5",
    "o1",
    "o3",
    "o4",
    "gpt-oss",
)
_CL100K_PREFIXES = ("gpt-4", "gpt-3.5", "gpt-35", "text-embedding-3", "text-embedding-ada-002")


def encoding_for_model(model: str) -> str | None:
    """The OpenAI encoding of a model name (a provider prefix such as `openai/` is
    ignored), or None for a model of no OpenAI encoding."""
    name = model.rsplit("/", 1)[-1].lower()
    if name.startswith(_O200K_PREFIXES):
        return "o200k_base"
    if name.startswith(_CL100K_PREFIXES):
        return "cl100k_base"
    return None


class TiktokenCounter:
    """Exact counts with a tiktoken encoding."""

    def __init__(self, encoding: object, name: str) -> None:
        self._encoding = encoding
        self.name = name

    def count(self, text: str) -> int:
        return len(self._encoding.encode(text, disallowed_special=()))  # type: ignore[attr-defined]

    def head(self, text: str, tokens: int) -> str:
        encoded = self._encoding.encode(text, disallowed_special=())  # type: ignore[attr-defined]
        head: str = self._encoding.decode(encoded[: max(0, tokens)])  # type: ignore[attr-defined]
        return head.rstrip("\ufffd")  # a character cut in the middle is left out


def read_ranks(path: Path, source: EncodingSource) -> dict[bytes, int] | None:
    """The ranks in `path` when it is exactly OpenAI's file, else None."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if hashlib.sha256(data).hexdigest() != source.sha256:
        log.warning("tokenizer ranks do not match their digest; ignored", path=str(path))
        return None
    ranks: dict[bytes, int] = {}
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


class Encodings:
    """Token counters by model name, from the rank files in `folder` (read once each)."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._loaded: dict[str, TokenCounter] = {}
        self._lock = threading.Lock()

    def load(self, build: Collection[str] | None = None) -> list[str]:
        """Check every encoding's ranks (their digests), build the encodings named in
        `build` (every one when None) now, and say once whether their counts are exact;
        the encodings whose verified ranks are there. Blocking: call it off the event loop.

        The server calls it right after it answers SERVING, building only its executor
        model's encoding: an encoding's ranks take 40-70 MB and a second or so to build,
        and a server without a model, or with a model of one encoding, needs none or one.
        Missing ranks are a warning only for an encoding in `build`: a server whose model
        has no OpenAI encoding (the demo's) estimates whatever the folder holds. An
        encoding not built here is built when first asked for (`for_model`), which warns
        then, once, if its ranks are missing."""
        names = list(SOURCES) if build is None else [n for n in SOURCES if n in build]
        with self._lock:
            for name in names:
                if name not in self._loaded:
                    self._loaded[name] = self._load(name, quiet=True)
        exact = [n for n in SOURCES if self._verified(n)]
        missing = [n for n in names if n not in exact]
        if missing:
            log.warning(
                "token counts are estimated (no verified tokenizer ranks)",
                missing=missing,
                folder=str(self.folder),
                hint=HINT,
            )
        elif len(exact) == len(SOURCES):
            log.info(
                "token counts: exact for OpenAI's models, estimated for others",
                encodings=exact,
                folder=str(self.folder),
            )
        else:
            log.info(
                "token counts: estimated for models of no OpenAI encoding; ranks "
                "missing for others",
                encodings=exact,
                folder=str(self.folder),
            )
        return exact

    def _verified(self, name: str) -> bool:
        """Whether `name` has its ranks: built already, else a file of the right digest."""
        loaded = self._loaded.get(name)
        if loaded is not None:
            return loaded is not ESTIMATE
        source = SOURCES[name]
        if self.folder is None:
            return False
        try:
            data = (self.folder / source.cache_name).read_bytes()
        except OSError:
            return False
        return hashlib.sha256(data).hexdigest() == source.sha256

    def for_model(self, model: str) -> TokenCounter:
        name = encoding_for_model(model)
        if name is None:
            return ESTIMATE
        found = self._loaded.get(name)
        if found is None:
            with self._lock:
                found = self._loaded.get(name) or self._load(name)
                self._loaded[name] = found
        return found

    def _load(self, name: str, quiet: bool = False) -> TokenCounter:
        source = SOURCES[name]
        path = self.folder / source.cache_name if self.folder else None
        try:
            stat = path.stat() if path else None
        except OSError:
            stat = None
        key = (str(path), stat.st_size, stat.st_mtime_ns) if path and stat else None
        built = _BUILT.get(key) if key else None
        if built is not None:  # the same file, built already by another server of this process
            return built
        ranks = read_ranks(path, source) if path and stat else None
        if ranks is None:
            if not quiet:
                log.warning(
                    "no tokenizer ranks: tokens are estimated",
                    encoding=name,
                    folder=str(self.folder),
                    hint=HINT,
                )
            return ESTIMATE
        import tiktoken

        # Built from the verified bytes: tiktoken's loaders (which download) are never used.
        encoding = tiktoken.Encoding(
            name=name,
            pat_str=source.pattern,
            mergeable_ranks=ranks,
            special_tokens=source.special_tokens,
        )
        counter = TiktokenCounter(encoding, name)
        if key is not None:
            _BUILT[key] = counter
        return counter


_BUILT: dict[tuple[str, int, int], TokenCounter] = {}
"""Encodings built in this process, by rank file (path, size, mtime): built once each."""
