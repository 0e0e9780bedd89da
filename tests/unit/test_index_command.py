"""`searchain index --verify DIR` checks an embedded index alone: every other option is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from searchain.cli.index import index


@pytest.mark.parametrize(
    ("given", "named"),
    [
        ({"backend": "elasticsearch"}, "--backend"),
        ({"es_url": "http://es:9200"}, "--es-url"),
        ({"es_index": "wiki"}, "--es-index"),
        ({"k1": 1.2}, "--k1"),
        ({"shards": 2, "include": ["*.md"]}, "--include, --shards"),
        ({"paths": [Path("docs")]}, "PATH"),
        ({"update": True}, "--update"),
    ],
)
def test_verify_refuses_every_other_option(tmp_path, given, named):
    with pytest.raises(ValueError, match=f"^{named}: --verify DIR checks an index alone$"):
        index(verify=tmp_path / "nowhere", **given)
