"""Imports flow one way, with no cycle: errors → leaves → documents → prompts → questions → tools →
context and state → nodes → graph → applications (methods, eval, integrations, threads, output) →
cli → server.

Every ``import`` counts, at module level or inside a function (a lazy import is still a
dependency), and so does one under ``TYPE_CHECKING``. A new cycle or an upward import fails here
with the modules named.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import warnings
from collections.abc import Iterator, Mapping

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import ROOT

LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("errors (import nothing of searchain)", ("searchain.errors",)),
    (
        "leaves (import only the errors)",
        (
            "searchain",  # the package's __init__: the version and the demo corpus' path
            "searchain.types",
            "searchain.cache",
            "searchain.pool",
            "searchain.text",
            "searchain.redact",
            "searchain.events",
            "searchain.files",
        ),
    ),
    ("what an index holds of a person's documents", ("searchain.indexed",)),
    ("what a reader is told of an answer", ("searchain.provenance",)),
    ("a person's documents as passages", ("searchain.documents",)),
    ("words compared for meaning", ("searchain.tokens",)),
    ("verdicts on the leaves' text", ("searchain.support",)),
    ("prompts", ("searchain.prompts",)),
    ("the data sets' questions and their scores", ("searchain.questions",)),
    ("tools", ("searchain.tools",)),
    (
        "context and state",
        (
            "searchain.context",
            "searchain.searched",
            "searchain.preload",
            "searchain.channels",
            "searchain.state",
            "searchain.conversation",
            "searchain.chat_markdown",
            "searchain.decisions",
        ),
    ),
    ("nodes", ("searchain.nodes",)),
    ("graph", ("searchain.graph",)),
    (
        "applications",
        (
            "searchain.methods",
            "searchain.eval",
            "searchain.integrations",
            "searchain.threads",
            "searchain.output",
            "searchain.page",
        ),
    ),
    ("cli", ("searchain.cli", "searchain.__main__")),
    ("server", ("searchain.server",)),
]


def module_name(path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_modules() -> dict[str, ast.Module]:
    return {
        module_name(path): ast.parse(path.read_text(encoding="utf-8"))
        for path in sorted((ROOT / "searchain").rglob("*.py"))
    }


def imports(tree: ast.Module, modules: Mapping[str, object]) -> Iterator[str]:
    """The searchain modules ``tree`` imports (``from searchain import cache`` is a module)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name.startswith("searchain"))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("searchain"):
            assert node.level == 0, "relative imports hide where a module sits"
            module = node.module or ""
            for alias in node.names:
                inner = f"{module}.{alias.name}"
                yield inner if inner in modules else module


def layer(module: str) -> int:
    """The index of the layer ``module`` belongs to (its longest matching prefix)."""
    best, rank = -1, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, rank = len(prefix), index
    assert rank >= 0, f"{module} belongs to no layer: add it to LAYERS"
    return rank


def dependency_graph() -> dict[str, set[str]]:
    modules = package_modules()
    return {name: set(imports(tree, modules)) - {name} for name, tree in modules.items()}


def find_cycle(graph: Mapping[str, set[str]]) -> list[str] | None:
    """One import cycle as ``[a, b, ..., a]``, or ``None``."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def upward_imports(graph: Mapping[str, set[str]]) -> list[str]:
    wrong = []
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            below, above = layer(module), layer(target)
            if above > below or (below <= 1 and above == below and target != module):
                wrong.append(f"{module} ({LAYERS[below][0]}) imports {target} ({LAYERS[above][0]})")
    return wrong


def test_every_module_belongs_to_a_layer():
    for module in package_modules():
        layer(module)


def test_imports_flow_one_way():
    assert upward_imports(dependency_graph()) == []


def test_there_is_no_import_cycle():
    assert find_cycle(dependency_graph()) is None


def part(module: str) -> str:
    """The part ``module`` belongs to: ``searchain.X``, or ``searchain.tools.X`` for a tool."""
    names = module.split(".")
    return ".".join(names[: 3 if names[1:2] == ["tools"] and len(names) > 2 else 2])


def parts_graph(graph: Mapping[str, set[str]]) -> dict[str, set[str]]:
    """``graph`` with each module replaced by its part (imports within a part dropped)."""
    parts: dict[str, set[str]] = {}
    for module, targets in graph.items():
        here = part(module)
        parts.setdefault(here, set()).update(part(t) for t in targets if part(t) != here)
    return parts


def test_no_two_parts_import_each_other_even_in_one_layer():
    """A layer may hold several parts (methods and eval are both applications); each pair of
    parts still depends one way at most, whichever modules the imports go through."""
    assert find_cycle(parts_graph(dependency_graph())) is None
    looped = {"searchain.methods.dsp": {"searchain.eval.metrics"}, "searchain.eval.run": set()}
    looped["searchain.eval.run"] = {"searchain.methods"}
    assert find_cycle(parts_graph(looped)) == [
        "searchain.eval",
        "searchain.methods",
        "searchain.eval",
    ]
    assert part("searchain.tools.retrieval.embedded.index") == "searchain.tools.retrieval"
    assert part("searchain") == "searchain"


@pytest.mark.parametrize(
    ("graph", "cycle"),
    [
        ({"a": {"b"}, "b": {"c"}, "c": set()}, None),
        ({"a": {"b"}, "b": {"a"}}, ["a", "b", "a"]),
        ({"a": {"b"}, "b": {"c"}, "c": {"b"}}, ["b", "c", "b"]),
    ],
)
def test_the_cycle_finder_finds_cycles(graph, cycle):
    assert find_cycle(graph) == cycle


def test_an_upward_import_is_named():
    graph = {"searchain.tools.llms.resolve": {"searchain.context"}, "searchain.text": set()}
    assert upward_imports(graph) == [
        "searchain.tools.llms.resolve (tools) imports searchain.context (context and state)"
    ]
    assert upward_imports({"searchain.text": {"searchain.types"}}) == [
        "searchain.text (leaves (import only the errors)) imports searchain.types "
        "(leaves (import only the errors))"
    ]
    assert upward_imports({"searchain.files": {"searchain.errors"}}) == []
    assert upward_imports({"searchain.errors": {"searchain.text"}}) == [
        "searchain.errors (errors (import nothing of searchain)) imports searchain.text "
        "(leaves (import only the errors))"
    ]


def test_sizes_are_a_warning_and_only_a_file_past_any_reason_fails():
    """Issue 68: a hard cap at 400 lines shaped the layout (files split by size, not concern,
    docstrings cut to fit). Past 400 lines, or a folder past a quarter of the package, is now a
    warning to look at the file's concerns; only past 800 lines, or half the package, fails."""
    files = {
        p: len(p.read_text(encoding="utf-8").splitlines()) for p in ROOT.glob("searchain/**/*.py")
    }
    total = sum(files.values())
    folders: dict[str, int] = {}
    for path, n in files.items():
        folder = str(path.parent.relative_to(ROOT))
        folders[folder] = folders.get(folder, 0) + n
    long = sorted(f"{p.relative_to(ROOT)} ({n} lines)" for p, n in files.items() if n > 400)
    heavy = sorted(f"{f} ({n / total:.0%})" for f, n in folders.items() if n > total / 4)
    if long or heavy:
        warnings.warn(f"look at these for more than one concern: {long + heavy}", stacklevel=1)
    assert [str(p) for p, n in files.items() if n > 800] == []
    assert [f for f, n in folders.items() if n > total / 2] == []


ENGINE = "searchain.tools.retrieval"
"""The embedded BM25 engine and the Elasticsearch backend: every module of the folder but
:data:`ENGINE_GLUE`."""
ENGINE_GLUE = frozenset(
    f"{ENGINE}.{name}" for name in ("resolve", "batch", "langchain", "uploaded")
)
"""What ties the backends to the agent: a spec resolved, batched search, LangChain's retriever
adapter, the chat's uploaded files."""
ENGINE_MAY_IMPORT = (ENGINE, "searchain.errors", "searchain.indexed", "searchain.types",
                     "searchain.text", "searchain.files", "searchain.redact")  # fmt: skip
"""The engine knows nothing of LangChain, documents, the agent or the CLI: only these."""


def every_import(tree: ast.Module) -> Iterator[str]:
    """Each module ``tree`` imports, searchain's or not (``from x import y`` as ``x``)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module


def engine_leaks(trees: Mapping[str, ast.Module]) -> list[str]:
    """Each import by an engine module of what the engine must not know."""
    foreign = ("langchain", "langgraph", "typer", "rich", "searchain")
    return [
        f"{module} imports {target}"
        for module, tree in sorted(trees.items())
        if module.startswith(ENGINE + ".") and module not in ENGINE_GLUE
        for target in sorted(set(every_import(tree)))
        if target.split(".")[0].startswith(foreign)
        and target != "searchain"  # the package's root: where it is installed, for workers
        and not any(target == m or target.startswith(m + ".") for m in ENGINE_MAY_IMPORT)
    ]


EMBEDDED = f"{ENGINE}.embedded"
CORPUS = f"{ENGINE}.corpus"
SCORING = f"{ENGINE}.scoring"
BESIDE_THE_ENGINE = {
    EMBEDDED: (EMBEDDED, CORPUS, SCORING),
    CORPUS: (CORPUS,),
    f"{ENGINE}.elastic": (f"{ENGINE}.elastic", CORPUS, SCORING, f"{ENGINE}.fields"),
    SCORING: (),
}
"""What each retrieval part may import of the others: the embedded engine its own parts, the
corpus readers and BM25's formula; the readers and the formula nothing of either backend;
Elasticsearch nothing of the engine."""


def part_leaks(graph: Mapping[str, set[str]]) -> list[str]:
    """Each import by a part of :data:`BESIDE_THE_ENGINE` of a retrieval module not its own."""
    return [
        f"{module} imports {target}"
        for module, targets in sorted(graph.items())
        for part, allowed in BESIDE_THE_ENGINE.items()
        if module == part or module.startswith(part + ".")
        for target in sorted(targets)
        if target.startswith(ENGINE + ".")
        and not any(target == a or target.startswith(a + ".") for a in allowed)
    ]


def test_the_engine_its_corpus_readers_and_elasticsearch_import_one_way():
    trees = package_modules()
    graph = {m: set(every_import(t)) for m, t in trees.items()}
    assert part_leaks(graph) == []
    assert part_leaks({f"{CORPUS}.rows": {f"{EMBEDDED}.index"}}) == [
        f"{CORPUS}.rows imports {EMBEDDED}.index"
    ]
    assert part_leaks({f"{EMBEDDED}.index": {f"{ENGINE}.elastic.client"}}) != []


def test_a_part_of_the_engine_imported_alone_loads_no_other_part_and_the_front_door_serves_all():
    """The front door's names load on first use: the tokenizer alone brings in no index or build."""
    probe = (
        "import sys\n"
        f"import {EMBEDDED}.analysis.tokenizer\n"
        f"print(sorted(m for m in sys.modules if m.startswith('{EMBEDDED}.')))\n"
        f"from {EMBEDDED} import BM25Index, IndexLoadError, Options, build, update\n"
        f"import {EMBEDDED} as engine\n"
        "try:\n    engine.nothing\nexcept AttributeError as refused:\n    print(refused)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True
    )
    loaded, refused = done.stdout.splitlines()
    assert not {f"{EMBEDDED}.index", f"{EMBEDDED}.indexer.build", f"{EMBEDDED}.indexer.update"} & {
        name.strip("' ") for name in loaded.strip("[]").split(",")
    }
    assert refused == f"module '{EMBEDDED}' has no attribute 'nothing'"


def test_the_engine_imports_nothing_of_the_agent_documents_langchain_or_the_cli():
    assert engine_leaks(package_modules()) == []
    leak = ast.parse("from searchain.documents.collection import Documents\nimport langchain_core")
    assert engine_leaks({f"{ENGINE}.update": leak}) == [
        f"{ENGINE}.update imports langchain_core",
        f"{ENGINE}.update imports searchain.documents.collection",
    ]
    assert engine_leaks({f"{ENGINE}.uploaded": leak}) == []  # the glue may


METHOD_FAMILIES = ("searchain.nodes", "searchain.graph", "searchain.methods.")
"""What a method is made of: its nodes, its graph, its module of :mod:`searchain.methods`."""


def method_family_imports(graph: Mapping[str, set[str]]) -> list[str]:
    """Each import by a module of ``searchain.eval`` of a module that belongs to a method."""
    return [
        f"{module} imports {target}"
        for module, targets in sorted(graph.items())
        if module == "searchain.eval" or module.startswith("searchain.eval.")
        for target in sorted(targets)
        if target.startswith(METHOD_FAMILIES)
    ]


def test_the_evaluation_imports_no_method_by_name():
    """It reads the methods from their registry (``searchain.methods``) and nothing else."""
    assert method_family_imports(dependency_graph()) == []
    assert method_family_imports({"searchain.eval.setup": {"searchain.methods.dsp"}}) == [
        "searchain.eval.setup imports searchain.methods.dsp"
    ]
    assert method_family_imports({"searchain.eval.x": {"searchain.methods"}}) == []


def test_a_runs_spec_passes_few_modules_and_seldom_climbs_back_up():
    """From the evaluation's entrance, followed as data (``tests/spec_flow.py``), whichever
    method runs: at most 10 modules, at most 3 climbs back up a layer."""
    from searchain.methods import METHODS
    from tests.spec_flow import Package, measure

    package = Package()
    for name in METHODS:
        modules, _, climbs = measure(name, package)
        assert (name, modules <= 10, climbs <= 3) == (name, True, True), (modules, climbs)


def code_map() -> str:
    """ARCHITECTURE.md's code map: from its heading to the next."""
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    return text.split("## Code map", 1)[1].split("\n## ", 1)[0]


def unmapped(names: set[str], mapped: str) -> list[str]:
    """Each of searchain's top-level modules and folders ``names`` the map never names."""
    named = set(re.findall(r"`([\w/.*]+)`", mapped))
    return sorted(n for n in names if n not in named)


def test_the_code_map_names_every_part_and_only_parts_that_exist():
    package = ROOT / "searchain"
    parts = {p.name for p in package.glob("*.py")} | {
        f"{p.name}/" for p in package.iterdir() if p.is_dir() and p.name != "__pycache__"
    }
    assert unmapped(parts - {"__init__.py"}, code_map()) == []
    assert unmapped({"nowhere.py"}, code_map()) == ["nowhere.py"]
    for name in re.findall(r"`((?:[\w]+/)*[\w]+(?:\.py|/))`", code_map()):
        found = [p for p in package.rglob(name.rstrip("/")) if "__pycache__" not in p.parts]
        assert found or (ROOT / name).exists(), f"ARCHITECTURE.md names {name}: no such file"


def test_the_files_the_suite_runs_first_exist():
    """``SLOWEST_FILES`` names files, not patterns: a renamed one would silently run last."""
    from tests.conftest import SLOWEST_FILES

    present = {path.name for path in (ROOT / "tests").rglob("test_*.py")}
    assert len(set(SLOWEST_FILES)) == len(SLOWEST_FILES)
    assert set(SLOWEST_FILES) - present == set()


@given(cpus=st.sets(st.integers(0, 255), min_size=1, max_size=64), workers=st.integers(1, 16))
def test_each_worker_computes_on_cores_of_its_own(cpus, workers):
    """Each pytest-xdist worker gets a core at least, and no two share one while cores suffice."""
    from tests.conftest import cores_of_worker

    shares = [cores_of_worker(sorted(cpus), k, workers) for k in range(workers)]
    assert all(share and set(share) <= cpus for share in shares)
    if workers <= len(cpus):
        assert sorted(c for share in shares for c in share) == sorted(cpus)
    for outside in (-1, workers, workers + 7):  # no such worker: no share, nothing pinned
        assert cores_of_worker(sorted(cpus), outside, workers) == []
