"""How the CLI words a refusal's settings: as the flags and commands a person types.

The library names a setting (:class:`searchain.errors.Worded`); here ``overwrite`` becomes
``--overwrite`` and ``verify`` the command that verifies. A setting not listed is its flag,
``--`` and its name with dashes (``es_url`` → ``--es-url``); a test holds each to an option
some command has.
"""

from __future__ import annotations

from collections.abc import Mapping

FLAGS: Mapping[str, str] = {
    "analyzer": "--analyzer standard",
    "build": "`searchain index CORPUS.jsonl --index {path}`",
    "auto_cot_build": "`searchain eval --method auto-cot` (it builds them)",
    "auto_cot_demos": "SEARCHAIN_AUTO_COT_DEMOS",
    "calibrate": "`searchain calibrate`",
    "calibration": "SEARCHAIN_CALIBRATION (or --out)",
    "data": "SEARCHAIN_DATA_DIR (or --data)",
    "dsp_build": "`searchain eval --method dsp`",
    "es_build": "`searchain index CORPUS.jsonl --backend elasticsearch --es-index {name}`",
    "es_fields": "--es-title-field, --es-text-field, --es-id-field",
    "es_index": "another --es-index",
    "es_url": "--es-url / ES_URL",
    "format": "--format jsonl, beir or tsv",
    "index": "another --index",
    "memory": "a smaller --memory",
    "threads": "`searchain threads`",
    "verify": "`searchain index --verify {path}`",
    "workers": "fewer --workers",
}
"""The settings the CLI words otherwise than as ``--name`` (``{path}``: the refusal's fact)."""


def cli_words(name: str) -> str:
    """How the CLI words the setting ``name``."""
    return FLAGS.get(name, "--" + name.replace("_", "-"))
