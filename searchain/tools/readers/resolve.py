"""Reader specs to objects (``auto``, ``dpr``, ``extractive``, int8 variants, ``llm``), built once.

Every place that takes a ``reader`` accepts the same specs, or any object with ``read``.
"""

from __future__ import annotations

from pathlib import Path

from langchain_core.language_models import BaseChatModel

from searchain.cache import load_once
from searchain.errors import SettingError
from searchain.tools.llms.resolve import resolve_llm
from searchain.tools.pretrained import is_path
from searchain.tools.readers.auto import auto_reader
from searchain.tools.readers.llm import LLMReader
from searchain.tools.readers.models import DPRReaderModel, ExtractiveReader, reader_kind
from searchain.types import Reader


def resolve_reader(spec: str | Reader, llm: str | BaseChatModel = "auto") -> Reader:
    """Return the reader for ``spec``.

    ``auto`` is DPR where the ``models`` extra and its weights are installed, else ``llm``
    (:mod:`searchain.tools.readers.auto`); ``dpr`` and ``extractive`` use their default models,
    ``dpr:NAME_OR_DIR`` and ``extractive:NAME_OR_DIR`` others; a model directory alone is
    recognised by its config;
    ``llm`` reads with the chat model ``llm``, ``llm:SPEC`` with another one (``llm:local`` reads
    with SmolLM2 whatever the reasoning LLM is). ``dpr-int8`` and ``extractive-int8`` (with
    ``:NAME_OR_DIR`` too) run the model with int8 linear layers, 2-3x faster on a CPU. Any object
    with ``read`` is used as is.
    """
    if isinstance(spec, Reader):
        return spec
    if spec == "auto":
        return resolve_reader(auto_reader().spec, llm)
    name, _, arg = spec.partition(":")
    if name == "llm":
        return LLMReader(resolve_llm(arg or llm))
    if name not in ("dpr", "extractive") and Path(spec).is_dir():
        name, arg = reader_kind(spec), spec
    elif is_path(spec):
        what = (
            "is not a directory" if Path(spec).expanduser().exists() else "no such model directory"
        )
        raise SettingError("{reader} {spec}: {what}", settings=("reader",), spec=spec, what=what)
    kind, _, precision = name.partition("-")
    models = {"dpr": DPRReaderModel, "extractive": ExtractiveReader}
    if kind in models and precision in ("", "int8"):
        model = models[kind]
        return load_once(("reader", spec), lambda: model(arg or None, int8=precision == "int8"))
    raise ValueError(
        f"unknown reader {spec!r}: use auto, dpr, extractive, llm, llm:SPEC, dpr:DIR, "
        "extractive:DIR, a model directory, or dpr-int8[:DIR] / extractive-int8[:DIR] for the "
        "int8 CPU path"
    )
