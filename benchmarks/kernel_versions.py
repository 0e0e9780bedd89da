"""The search kernel of an earlier commit against this one: queries timed in turn, or apart.

Loads the kernel as it was at ``--before`` (``topk.py``, or ``kernel/`` once it moved there; it
must still import against this tree's codec) beside this tree's :class:`TopK`, each in one
thread and in a thread a core where it has threads, and times each query with each in turn —
two passes over the queries, after five to warm up — so the machine's mood falls on all alike.
Every answer must equal the earlier kernel's, float for float:

    python benchmarks/kernel_versions.py --index W/searchain-21000000 --queries W/queries.json \\
        --before bfe0070

(``W`` an ``engines.py --keep`` work folder.) In one process the kernels share the caches,
each evicting what the others read; ``--apart N`` runs each alone in a process of its own
instead, N rounds, the kernels alternated, and gives each one's median rate over its second
pass (the first warms it). Prints figures; asserts nothing but the answers.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import inspect
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

from searchain.tools.retrieval.embedded.index import BM25Index
from searchain.tools.retrieval.embedded.search.topk import TopK

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


KERNEL = ("lists", "norms", "maxscore", "topk")
"""The kernel's modules, each after those it imports (a commit may lack some)."""
KERNEL_PACKAGES = ("searchain.tools.retrieval.embedded.search", "searchain.tools.retrieval.kernel")
"""Where the kernel's modules lived, newest first."""


def earlier_topk(commit: str, folder: Path) -> type:
    """``TopK`` as it was at ``commit``, its kernel loaded as modules of their own.

    Before the kernel moved to ``kernel/`` it was one file, ``topk.py``; after (and since it
    moved on to ``embedded/search/``), each of its modules is loaded under a name of its own,
    the others' imports of it rewritten.
    """
    tag = commit[:12]
    old = _show(commit, "searchain/tools/retrieval/topk.py")
    if old is not None:
        return _module(f"topk_{tag}", old, folder).TopK
    for package in KERNEL_PACKAGES:  # the newest layout first
        sources = {name: _show(commit, f"{package.replace('.', '/')}/{name}.py") for name in KERNEL}
        if sources["maxscore"] is not None and sources["topk"] is not None:
            break
    else:
        raise SystemExit(f"{commit} has no kernel this script knows how to load")
    loaded = {}
    for name, source in sources.items():
        if source is None:
            continue
        for other in loaded:
            source = source.replace(
                f"from {package} import {other}\n",
                f"import {other}_{tag} as {other}\n",
            ).replace(
                f"from {package}.{other} import",
                f"from {other}_{tag} import",
            )
        loaded[name] = _module(f"{name}_{tag}", source, folder)
    return loaded["topk"].TopK


def _kernels(index: BM25Index, before: str, folder: Path, which: str = "") -> dict[str, object]:
    """The earlier kernel and this one, each in one thread and a thread a core where it can.

    ``which`` keeps one of them by name (a child of ``--apart``); empty: all.
    """
    earlier = earlier_topk(before, Path(folder))
    kernels = {f"kernel of {before}": lambda: earlier(index.postings)}
    if "threads" in inspect.signature(earlier).parameters:  # it searches in threads too
        kernels = {
            f"kernel of {before}, one thread": lambda: earlier(index.postings, threads=1),
            f"kernel of {before}, a thread a core": lambda: earlier(index.postings),
        }
    kernels["this kernel, one thread"] = lambda: TopK(index.postings, threads=1)
    kernels["this kernel, a thread a core"] = lambda: TopK(index.postings)
    return {name: make() for name, make in kernels.items() if not which or name == which}


def _in_turn(index: BM25Index, terms: list[list[int]], before: str) -> None:
    """Every kernel in this process, each query timed with each in turn, twice."""
    with tempfile.TemporaryDirectory() as folder:
        kernels = _kernels(index, before, Path(folder))
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


def _child(index: BM25Index, terms: list[list[int]], before: str, which: str) -> None:
    """One kernel alone in this process: a pass over the queries, then a timed one."""
    with tempfile.TemporaryDirectory() as folder:
        (kernel,) = _kernels(index, before, Path(folder), which).values()
        answers = hashlib.sha256()
        for query in terms:
            docs, scores = kernel.search(query, 10)
            answers.update(docs.tobytes() + scores.tobytes())
        started = time.perf_counter()
        for query in terms:
            kernel.search(query, 10)
        rate = len(terms) / (time.perf_counter() - started)
    print(json.dumps({"rate": rate, "answers": answers.hexdigest()}))


def _apart(args: argparse.Namespace, names: list[str]) -> None:
    """Each kernel in a process of its own, ``args.apart`` rounds, the kernels alternated.

    In one process the kernels take turns with the caches, each evicting what the other read:
    a kernel that reads less memory gains less there than it does alone.
    """
    rates: dict[str, list[float]] = {name: [] for name in names}
    digests = set()
    for _ in range(args.apart):
        for name in names:
            command = [sys.executable, __file__, "--index", args.index, "--queries", args.queries]
            command += ["--before", args.before, "--child", name]
            result = json.loads(subprocess.run(command, check=True, capture_output=True).stdout)
            rates[name].append(result["rate"])
            digests.add(result["answers"])
    if len(digests) != 1:
        raise SystemExit("the kernels answer differently")
    first = statistics.median(next(iter(rates.values())))
    print(f"{len(names)} kernels, each alone in a process, {args.apart} rounds alternated")
    for name, found in rates.items():
        rate = statistics.median(found)
        runs = ", ".join(f"{r:.1f}" for r in found)
        print(f"- {name}: median {rate:.1f} q/s ({rate / first:.2f}x), runs {runs}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--index", required=True)
    parser.add_argument("--queries", required=True, help="a JSON list of questions")
    parser.add_argument("--before", required=True, help="the commit whose kernel to compare")
    parser.add_argument(
        "--apart", type=int, default=0, help="rounds of each kernel in a process of its own"
    )
    parser.add_argument("--child", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    index = BM25Index.load(args.index)
    terms = [index.terms(q) for q in json.loads(Path(args.queries).read_text())]
    if args.child:
        _child(index, terms, args.before, args.child)
    elif args.apart:
        with tempfile.TemporaryDirectory() as folder:
            names = list(_kernels(index, args.before, Path(folder)))
        _apart(args, names)
    else:
        _in_turn(index, terms, args.before)


if __name__ == "__main__":
    main()
