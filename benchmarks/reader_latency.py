"""Reader latency per passage for a DPR-sized reader (BERT-base config, random weights).

Run: .venv/bin/python benchmarks/reader_latency.py [--passages 32] [--batch 1 8]
Random weights are as slow as trained ones: the figure is the CPU cost of reading. Passages are
real pooled-corpus paragraphs. Prints figures; asserts nothing.
"""

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checkout's tests/ doubles

from searchain.eval.datasets import data_dir, musique_hops, pooled_corpus
from searchain.tools.readers.models import DPRReaderModel
from tests.tiny_models import make_dpr_reader


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=None)
    parser.add_argument("--passages", type=int, default=32)
    parser.add_argument("--batch", type=int, nargs="+", default=[1, 8])
    args = parser.parse_args()
    import torch

    root = data_dir(args.data)
    passages = pooled_corpus(root)[: args.passages]
    query = musique_hops(root, "tune")[0].question
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        path = str(make_dpr_reader(Path(tmp), size="base"))
        readers = {"fp32": DPRReaderModel(path), "int8": DPRReaderModel(path, int8=True)}
        for reader in readers.values():
            reader.load()
        print(
            f"DPR reader, BERT-base config (random weights), {torch.get_num_threads()} threads; "
            f"created and loaded in {time.perf_counter() - started:.1f} s"
        )
        medians = {}
        for name, reader in readers.items():
            reader.read(query, passages[:2])  # warm-up
            for batch in args.batch:
                reader.batch_size = batch  # passages per forward pass
                per_passage = []
                for i in range(0, len(passages) - batch + 1, batch):
                    started = time.perf_counter()
                    reader.read(query, passages[i : i + batch])
                    per_passage.append((time.perf_counter() - started) / batch)
                medians[name, batch] = statistics.median(per_passage)
                print(
                    f"{name} batch {batch}: {medians[name, batch] * 1000:.0f} ms per passage "
                    f"(median of {len(per_passage)} batches, max_length {reader.max_length})"
                )
        for batch in args.batch:
            ratio = medians["int8", batch] / medians["fp32", batch]
            print(f"batch {batch}: int8/fp32 time ratio {ratio:.2f}")
        for reader in readers.values():
            reader.batch_size = None  # the default: one passage per pass on a CPU
        fp32 = readers["fp32"].read(query, passages)
        int8 = readers["int8"].read(query, passages)
        same = sum(a.answer == b.answer for a, b in zip(fp32, int8, strict=True))
        gap = max(abs(a.confidence - b.confidence) for a, b in zip(fp32, int8, strict=True))
        print(
            f"spans identical on {same}/{len(passages)} passages; relevance logits within "
            f"{gap:.3f} (random weights: near-tied spans may flip; recheck θ on real weights)"
        )


if __name__ == "__main__":
    main()
