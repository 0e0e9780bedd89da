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

from searchain.tools.retrieval.embedded.index import BM25Index, IndexLoadError
from searchain.tools.retrieval.embedded.indexer.build import Options, build
from searchain.tools.retrieval.embedded.indexer.update import update

__all__ = ["BM25Index", "IndexLoadError", "Options", "build", "update"]
