"""The search kernel of an earlier commit against this one, in one process, queries timed in turn.

Loads the kernel as it was at ``--before`` (``topk.py``, or ``kernel/`` once it moved there; it
must still import against this tree's codec) beside this tree's :class:`TopK`, each in one
thread and in a thread a core where it has threads, and times each query with each in turn —
two passes over the queries, after five to warm up — so the machine's mood falls on all alike.
Every answer must equal the earlier kernel's, float for float:

    python benchmarks/kernel_versions.py --index W/searchain-21000000 --queries W/queries.json \\
        --before bfe0070

(``W`` an ``engines.py --keep`` work folder.) Prints figures; asserts nothing but the answers.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

from searchain.tools.retrieval.bm25 import BM25Index
from searchain.tools.retrieval.kernel.topk import TopK

HERE = Path(__file__).resolve().parent


def _show(commit: str, path: str) -> str | None:
    """``path`` as it was at ``commit``, or None where it did not exist."""
    shown = subprocess.run(
        ["git", "show", f"{commit}:{path}"], cwd=HERE, capture_output=True, text=True
    )
    return shown.stdout if shown.returncode == 0 else None


def _module(name: str, source: str, folder: Path) -> ModuleType:
    path = folder / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # numba's cache and dataclasses look a module up by name
    spec.loader.exec_module(module)
    return module


def earlier_topk(commit: str, folder: Path) -> type:
    """``TopK`` as it was at ``commit``, its kernel loaded as modules of their own.

    Before the kernel moved to ``kernel/`` it was one file, ``topk.py``; after, ``topk.py``
    imports ``maxscore.py`` beside it, whose earlier version is loaded in its place.
    """
    tag = commit[:12]
    old = _show(commit, "searchain/tools/retrieval/topk.py")
    if old is not None:
        return _module(f"topk_{tag}", old, folder).TopK
    kernel = _show(commit, "searchain/tools/retrieval/kernel/maxscore.py")
    topk = _show(commit, "searchain/tools/retrieval/kernel/topk.py")
    if kernel is None or topk is None:
        raise SystemExit(f"{commit} has no kernel this script knows how to load")
    _module(f"maxscore_{tag}", kernel, folder)
    topk = topk.replace(
        "from searchain.tools.retrieval.kernel import maxscore\n",
        f"import maxscore_{tag} as maxscore\n",
    ).replace(
        "from searchain.tools.retrieval.kernel.maxscore import WINDOW\n",
        f"from maxscore_{tag} import WINDOW\n",
    )
    return _module(f"topk_{tag}", topk, folder).TopK


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--index", required=True)
    parser.add_argument("--queries", required=True, help="a JSON list of questions")
    parser.add_argument("--before", required=True, help="the commit whose kernel to compare")
    args = parser.parse_args()
    index = BM25Index.load(args.index)
    terms = [index.terms(q) for q in json.loads(Path(args.queries).read_text())]
    with tempfile.TemporaryDirectory() as folder:
        earlier = earlier_topk(args.before, Path(folder))
        kernels = {f"kernel of {args.before}": earlier(index.postings)}
        if "threads" in inspect.signature(earlier).parameters:  # it searches in threads too
            kernels = {
                f"kernel of {args.before}, one thread": earlier(index.postings, threads=1),
                f"kernel of {args.before}, a thread a core": earlier(index.postings),
            }
        kernels["this kernel, one thread"] = TopK(index.postings, threads=1)
        kernels["this kernel, a thread a core"] = TopK(index.postings)
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
