"""The two backends behind one set of verbs: a caller names its backend once."""

from __future__ import annotations

import pytest

from searchain.documents.collection import Documents
from searchain.errors import SettingError
from searchain.tools.retrieval import embedded
from searchain.tools.retrieval.backends import (
    BuildOptions,
    Elastic,
    Embedded,
    backend,
)
from searchain.tools.retrieval.embedded.index import BM25Index
from searchain.types import Passage

PASSAGES = [
    Passage(id="p1", title="Lorenzo Monaco", text="Lorenzo Monaco was influenced by Giotto."),
    Passage(id="p2", title="Giotto", text="Giotto was an Italian painter and architect."),
]


def test_a_backend_is_named_once(tmp_path):
    assert backend("embedded", path=tmp_path / "i") == Embedded(tmp_path / "i")
    assert backend("elasticsearch", path=tmp_path, es_url="http://es:9200", es_index="w") == (
        Elastic("http://es:9200", "w")
    )
    with pytest.raises(SettingError, match=r"^unknown backend 'solr': use embedded or"):
        backend("solr", path=tmp_path)


def test_the_embedded_backend_builds_updates_and_takes_its_own_k1(tmp_path):
    target = backend("embedded", path=tmp_path / "index")
    assert target.build(PASSAGES, BuildOptions(workers=0)) == 2
    built = BM25Index.load(tmp_path / "index")
    assert (
        built.manifest["k1"] == embedded.Options().k1
        and built.search("Giotto architect")[0].id == "p2"
    )
    assert target.where == str(tmp_path / "index")
    with pytest.raises(FileExistsError):  # overwrite is the caller's to give
        target.build(PASSAGES, BuildOptions(workers=0))
    assert target.build(PASSAGES[:1], BuildOptions(overwrite=True, workers=0, k1=0.9)) == 1
    assert BM25Index.load(tmp_path / "index").manifest["k1"] == 0.9
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Siena\n\nDuccio painted in Siena.\n")
    embedded.build(Documents([docs]), tmp_path / "docs-index")
    (docs / "b.md").write_text("# Padua\n\nGiotto painted the chapel in Padua.\n")
    count, walk, changes = Embedded(tmp_path / "docs-index").update(Documents.again)
    assert count == 2 and changes.any and not walk.skipped


@pytest.mark.parametrize(
    ("target", "options", "named"),
    [
        ("embedded", BuildOptions(analyzer="english"), "analyzer: Elasticsearch's setting,"),
        ("embedded", BuildOptions(shards=2, replicas=1), "shards, replicas: Elasticsearch's"),
        ("elasticsearch", BuildOptions(tokenizer="standard"), "tokenizer: the embedded index's"),
        ("elasticsearch", BuildOptions(memory=1 << 30, workers=1), "memory, workers: the emb"),
    ],
)
def test_a_setting_of_the_other_backend_is_refused_not_ignored(tmp_path, target, options, named):
    with pytest.raises(SettingError, match="^" + named):
        backend(target, path=tmp_path / "index").build(PASSAGES, options)
    assert not (tmp_path / "index").exists()  # refused before anything is written or reached
