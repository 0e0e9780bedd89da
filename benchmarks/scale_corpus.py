"""Write a corpus shaped like DPR's ``psgs_w100.tsv`` at any size (21M passages: Wikipedia's).

Run:
    .venv/bin/python benchmarks/scale_corpus.py --passages 21000000 --out /big/psgs_21m.tsv.zst

How it is made (deterministic, seed 13), streamed to disk, never held whole:
- the header ``id<TAB>text<TAB>title``, ids ``1..N``, fields quoted as DPR's file is (Python's
  ``csv``, tab-delimited), zstd-compressed (level 3);
- passages ``1..6404`` are the shared data's real passages (the pooled corpus of the three
  ``*_200_*`` files), so every benchmark query's real answer passages are in the collection;
- every other passage is 100 words (psgs_w100's length) of SYNTHETIC filler: each word drawn
  from the shared corpus's unigram distribution over whitespace-separated words (case and
  punctuation kept), its title 1-3 words drawn from the distribution of title words;
- Wikipedia keeps coining words (names, numbers): a filler word is replaced by a brand-new word
  (``zq<base-36 counter>``, each used once) at the rate Heaps' law gives, ``V(n) = K n^beta`` with
  ``beta = 0.6`` (``--beta``) and ``K`` anchored on the shared corpus (its 75k distinct words in
  513k), so the vocabulary grows with the corpus as a real one does instead of stopping at the
  shared corpus's: about 11M distinct words at 21M passages, the order of English Wikipedia's.
  (The shared corpus alone fits ``beta = 0.74``, which over 4,000-fold extrapolation would coin
  34M.) The figures printed at the end say how many.
"""

from __future__ import annotations

import argparse
import collections
import csv
import io
import sys
import time
from pathlib import Path

import numpy as np

from searchain.eval.datasets import data_dir, pooled_corpus

WORDS = 100
BLOCK = 20_000


def base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if not n:
            return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--passages", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--data", default=None)
    parser.add_argument("--beta", type=float, default=0.6, help="Heaps' law exponent")
    args = parser.parse_args()
    import zstandard

    real = pooled_corpus(data_dir(args.data))
    text_words = [w for p in real for w in p.text.split()]
    counts = collections.Counter(text_words)
    vocab = np.array(list(counts), dtype=object)
    cumulative = np.cumsum(np.fromiter(counts.values(), dtype=np.float64))
    cumulative /= cumulative[-1]
    title_counts = collections.Counter(w for p in real for w in p.title.split())
    title_vocab = np.array(list(title_counts), dtype=object)
    title_cum = np.cumsum(np.fromiter(title_counts.values(), dtype=np.float64))
    title_cum /= title_cum[-1]
    beta = args.beta
    k = len(counts) / len(text_words) ** beta
    rng = np.random.default_rng(13)
    coined: list[str] = []
    words_so_far = len(text_words)
    started = time.perf_counter()
    tmp = args.out.with_name(args.out.name + ".part")
    with tmp.open("wb") as raw:
        compressor = zstandard.ZstdCompressor(level=3).stream_writer(raw)
        text = io.TextIOWrapper(compressor, encoding="utf-8", newline="")
        rows = csv.writer(text, delimiter="\t", lineterminator="\n")
        rows.writerow(["id", "text", "title"])
        for i, p in enumerate(real[: args.passages], 1):
            rows.writerow([i, p.text, p.title])
        written = min(len(real), args.passages)
        while written < args.passages:
            n = min(BLOCK, args.passages - written)
            picks = vocab[np.searchsorted(cumulative, rng.random((n, WORDS)))]
            # New words this block, by Heaps' law; they land on random positions of the block.
            total = words_so_far + n * WORDS
            new = int(k * total**beta - k * words_so_far**beta)
            if new > 0:
                names = [f"zq{base36(len(coined) + j)}" for j in range(new)]
                coined += names
                flat = picks.reshape(-1)
                flat[rng.choice(flat.size, size=new, replace=False)] = names
            titles = title_vocab[np.searchsorted(title_cum, rng.random((n, 3)))]
            lengths = rng.integers(1, 4, n)
            for j in range(n):
                written += 1
                rows.writerow([written, " ".join(picks[j]), " ".join(titles[j, : lengths[j]])])
            words_so_far = total
            if written % 1_000_000 < BLOCK:
                rate = written / (time.perf_counter() - started)
                print(f"{written:,} passages, {rate:,.0f}/s", file=sys.stderr, flush=True)
        text.flush()
        compressor.flush(zstandard.FLUSH_FRAME)
        text.detach()
    tmp.rename(args.out)
    print(
        f"{args.passages:,} passages ({min(len(real), args.passages):,} real) in "
        f"{time.perf_counter() - started:.0f} s: {args.out} ({args.out.stat().st_size / 2**30:.2f} "
        f"GiB zstd); Heaps' law K={k:.2f} beta={beta:.2f} anchored on {len(text_words):,} words "
        f"({len(counts):,} distinct); {len(coined):,} coined words"
    )


if __name__ == "__main__":
    main()
