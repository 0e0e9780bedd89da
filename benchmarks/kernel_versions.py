"""The search kernel of an earlier commit against this one, in one process, queries timed in turn.

Loads ``searchain/tools/retrieval/topk.py`` as it was at ``--before`` (a commit before the kernel
moved to ``kernel/``; it must still import against this tree's codec) beside this tree's
:class:`TopK`, in one thread and in a thread a core, and times each query with each in turn —
two passes over the queries, after five to warm up — so the machine's mood falls on all alike.
Every answer must equal the earlier kernel's, float for float:

    python benchmarks/kernel_versions.py --index W/searchain-21000000 --queries W/queries.json \\
        --before bfe0070

(``W`` an ``engines.py --keep`` work folder.) Prints figures; asserts nothing but the answers.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import tempfile
import time
from pathlib import Path

from searchain.tools.retrieval.bm25 import BM25Index
from searchain.tools.retrieval.kernel.topk import TopK

HERE = Path(__file__).resolve().parent


def earlier_topk(commit: str, folder: Path) -> type:
    """``TopK`` of ``topk.py`` at ``commit``, loaded as a module of its own."""
    source = subprocess.run(
        ["git", "show", f"{commit}:searchain/tools/retrieval/topk.py"],
        cwd=HERE,
        capture_output=True,
        check=True,
        text=True,
    ).stdout
    path = folder / f"topk_{commit}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.TopK


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--index", required=True)
    parser.add_argument("--queries", required=True, help="a JSON list of questions")
    parser.add_argument("--before", required=True, help="the commit whose kernel to compare")
    args = parser.parse_args()
    index = BM25Index.load(args.index)
    terms = [index.terms(q) for q in json.loads(Path(args.queries).read_text())]
    with tempfile.TemporaryDirectory() as folder:
        kernels = {
            f"kernel of {args.before}": earlier_topk(args.before, Path(folder))(index.postings),
            "this kernel, one thread": TopK(index.postings, threads=1),
            "this kernel, a thread a core": TopK(index.postings),
        }
        for query in terms[:5]:
            for kernel in kernels.values():
                kernel.search(query, 10)
        spent = dict.fromkeys(kernels, 0.0)
        for _ in range(2):
            for query in terms:
                answers = []
                for name, kernel in kernels.items():
                    started = time.perf_counter()
                    docs, scores = kernel.search(query, 10)
                    spent[name] += time.perf_counter() - started
                    answers.append((docs.tolist(), scores.tobytes()))
                if any(answer != answers[0] for answer in answers):
                    raise SystemExit(f"the kernels answer {query} differently")
    first = next(iter(spent.values()))
    print(f"{len(index):,} passages, {len(terms)} queries, top 10, each timed twice in turn")
    for name, seconds in spent.items():
        print(f"- {name}: {2 * len(terms) / seconds:.1f} q/s ({first / seconds:.2f}x)")


if __name__ == "__main__":
    main()
