"""Deterministic embeddings for tests, benches and the fake model server: each text's
character trigrams (and its words), hashed (CRC-32) into `dimensions` buckets with a sign, then
normalised. Texts that share words and spellings are near; unrelated texts are nearly
orthogonal. No model, no network, the same vector on every machine."""

from __future__ import annotations

import re
import zlib

import numpy as np
import numpy.typing as npt

_WORD = re.compile(r"\w+", re.UNICODE)


def _features(text: str) -> list[str]:
    words = _WORD.findall(text.lower())
    grams = [f"w:{w}" for w in words]
    for word in words:
        padded = f" {word} "
        grams.extend(padded[i : i + 3] for i in range(max(1, len(padded) - 2)))
    return grams


def vector(text: str, dimensions: int) -> npt.NDArray[np.float32]:
    """The text's unit vector (all zeros for a text without letters or digits)."""
    row = np.zeros(dimensions, np.float32)
    features = _features(text)
    if features:
        values = np.fromiter((zlib.crc32(f.encode()) for f in features), np.uint64, len(features))
        weights = np.fromiter((2.0 if f[:2] == "w:" else 1.0 for f in features), np.float32)
        signs = np.where((values >> np.uint64(31)) & np.uint64(1), 1.0, -1.0).astype(np.float32)
        buckets = (values % np.uint64(dimensions)).astype(np.intp)
        row += np.bincount(buckets, weights * signs, minlength=dimensions).astype(np.float32)
    norm = float(np.linalg.norm(row))
    return row / norm if norm else row


def tokens(text: str) -> int:
    """What the fake endpoint reports as the text's tokens: about one per 4 characters."""
    return max(1, (len(text) + 3) // 4)
