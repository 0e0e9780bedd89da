"""The embedded BM25 engine: an index on disk, searched in this process, no server.

Its front door, for the CLI, the backends and any Python program alike::

    index = build(passages, path, Options(k1=1.2, overwrite=True))  # -> BM25Index
    index = BM25Index.load(path)        # search(query, k), search_batch(queries, k)
    index, walk, changes = update(path, again)  # a documents index brought up to date
    BM25Index.verify(path)              # every byte checked: a one-line summary

Refusals are :class:`searchain.errors.Worded`: they carry their facts and name settings, which
each surface words its own way (a Python caller reads ``overwrite=True``, the CLI
``--overwrite``).

The parts, laid out as Lucene and tantivy lay an index out: ``directory/`` (the versioned files,
their switch and checks), ``analysis/`` (text to terms), ``termdict/`` (the vocabulary),
``postings/`` (grouped, segmented, bit-packed), ``store/`` (the passages), ``search/`` (top-k
BM25, with the exhaustive scorer as every faster one's oracle) and ``indexer/`` (build and
update). The engine imports nothing of LangChain, the agent, documents or the CLI
(``tests/unit/test_architecture.py``).
"""

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from searchain.tools.retrieval.embedded.index import BM25Index, IndexLoadError
    from searchain.tools.retrieval.embedded.indexer.build import Options, build
    from searchain.tools.retrieval.embedded.indexer.update import update

# Each name's module, imported on first use (PEP 562): a part imported alone (the tokenizer, the
# codec) loads neither the index, the build nor the update with it.
_HOMES = {
    "BM25Index": "index",
    "IndexLoadError": "index",
    "Options": "indexer.build",
    "build": "indexer.build",
    "update": "indexer.update",
}

__all__ = ["BM25Index", "IndexLoadError", "Options", "build", "update"]


def __getattr__(name: str) -> object:
    """The front door's ``name``, from its module; any other name is refused as Python would."""
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_HOMES[name]}"), name)
