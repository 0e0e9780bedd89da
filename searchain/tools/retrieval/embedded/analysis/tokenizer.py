"""The tokenizers of the embedded index: one turns passages into terms and queries into the same.

Built in the build's worker processes and in every process that searches, so importing it
loads nothing heavy: bm25s's stop words are read from its module file, PyStemmer is imported
when the first word is stemmed.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

_TOKEN = re.compile(r"(?u)\b\w\w+\b")
# Close to Lucene's StandardTokenizer (Unicode word breaks): "arthur's", "u.s", "1,000" stay whole.
_STANDARD_TOKEN = re.compile(r"\w+(?:(?:[.'`’]|(?<=\d)[,.](?=\d))\w+)*")
TOKENIZERS = ("stem", "standard")


@lru_cache(maxsize=1)
def english_stopwords() -> frozenset[str]:
    """bm25s's English stop words, read from its module file without importing bm25s.

    Importing the bm25s package loads numba and SciPy, which an index that is only being
    opened does not need; its stop-word list is a plain module of tuples.
    """
    spec = importlib.util.find_spec("bm25s")  # finds the package; runs none of it
    if spec is None or spec.origin is None:
        raise ImportError("bm25s is not installed: pip install searchain (it depends on bm25s)")
    path = Path(spec.origin).parent / "stopwords.py"
    loader = importlib.util.spec_from_file_location("searchain._bm25s_stopwords", path)
    assert loader is not None and loader.loader is not None
    module = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(module)
    return frozenset(module.STOPWORDS_EN)


@lru_cache(maxsize=1)
def _pystemmer_version() -> str:
    # Read from the installed package's metadata once: reading it was most of an open's time.
    return importlib.metadata.version("PyStemmer")


class Tokenizer:
    """Turns text into index terms; the same one builds the index and reads its queries.

    ``stem`` (default): lower-case words of two or more characters, English stop words removed,
    Snowball-stemmed — better recall. ``standard``: lower-case words as Elasticsearch's
    ``standard`` analyzer cuts them, nothing removed or stemmed — for parity with it. Stems are
    cached per word; PyStemmer objects are not thread-safe, hence one per thread.
    """

    def __init__(self, kind: str = "stem") -> None:
        if kind not in TOKENIZERS:
            raise ValueError(f"unknown tokenizer {kind!r}: use stem or standard")
        self.kind = kind
        self.stopwords = english_stopwords()
        """The words ``stem`` drops."""
        self._local = threading.local()
        self.stem = lru_cache(maxsize=1 << 20)(self._stem)

    def _stemmer(self, cache: int) -> Any:
        stemmer = getattr(self._local, f"stemmer{cache}", None)
        if stemmer is None:
            import Stemmer

            stemmer = Stemmer.Stemmer("english", cache)
            setattr(self._local, f"stemmer{cache}", stemmer)
        return stemmer

    @property
    def version(self) -> str | None:
        """The PyStemmer release that makes ``stem``'s terms; None for ``standard``.

        Releases stem some words apart (3.0 "international" to "intern", 3.1 to "internat"), so
        an index records the one that built it.
        """
        return _pystemmer_version() if self.kind == "stem" else None

    def check_built_with(self, version: str | None) -> str | None:
        """Why queries may not meet an index's terms that ``version`` made, or None."""
        if version is None or version == self.version:
            return None
        return (
            f"it was built with PyStemmer {version} and this process has {self.version}, whose "
            f"stems can differ, so some queries miss passages: rebuild the index, or "
            f"pip install PyStemmer=={version}"
        )

    def _stem(self, word: str) -> str:
        return self._stemmer(10_000).stemWord(word)

    def stems(self, words: list[str]) -> list[str]:
        """Each word's stem, in one call to the stemmer: a build's batch of distinct words.

        PyStemmer's own cache is off here: over a batch's words, most of them rare, keeping it
        costs three times the stemming.
        """
        return self._stemmer(0).stemWords(words)

    def __call__(self, text: str) -> list[str]:
        """Tokens of ``text``."""
        if self.kind == "standard":
            return _STANDARD_TOKEN.findall(text.lower())
        stop = self.stopwords
        return [self.stem(w) for w in _TOKEN.findall(text.lower()) if w not in stop]
