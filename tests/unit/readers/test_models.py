"""Readers through their real loading and span-extraction code, on tiny random models."""

from __future__ import annotations

import math

import pytest

from searchain.tools.readers.models import DPRReaderModel, ExtractiveReader
from searchain.tools.readers.resolve import resolve_reader
from searchain.types import Passage
from tests.conftest import cli_line, require_module
from tests.tiny_models import make_dpr_reader, make_extractive_reader


@pytest.fixture(autouse=True, scope="module")
def _reader_models():
    """Every test here runs a reader model: the 'models' extra (torch, transformers)."""
    require_module("torch", "models")


PASSAGES = [
    Passage("p2", "Kevin Drew", "Kevin Drew was born in Toronto, Ontario."),
    Passage("p1", "Spirit If...", "Spirit If... is the debut album of Kevin Drew."),
]


@pytest.fixture(scope="module")
def dpr_dir(tmp_path_factory):
    return make_dpr_reader(tmp_path_factory.mktemp("dpr"))


@pytest.fixture(scope="module")
def extractive_dir(tmp_path_factory):
    return make_extractive_reader(tmp_path_factory.mktemp("extractive"))


def test_dpr_reader_reads_each_passage_with_relevance_logit(dpr_dir):
    reader = resolve_reader(f"dpr:{dpr_dir}")
    assert isinstance(reader, DPRReaderModel) and reader.threshold == 1.5
    answers = reader.read("Where was Kevin Drew born?", PASSAGES)
    assert len(answers) == 2
    for answer, passage in zip(answers, PASSAGES, strict=True):
        assert answer.answer and answer.answer in passage.text  # a span, in the passage's case
        assert math.isfinite(answer.confidence)
    assert reader.read("anything", []) == []


def test_dpr_reader_scores_are_deterministic_and_batch_independent(dpr_dir):
    reader = DPRReaderModel(str(dpr_dir))
    together = reader.read("Where was Kevin Drew born?", PASSAGES)
    alone = [reader.read("Where was Kevin Drew born?", [p])[0] for p in PASSAGES]
    assert [a.answer for a in together] == [a.answer for a in alone]
    assert [a.confidence for a in together] == pytest.approx(
        [a.confidence for a in alone], abs=1e-4
    )


def test_long_passages_are_truncated_not_fatal(dpr_dir, extractive_dir):
    long = Passage("x", "Kevin Drew", " ".join(["kevin drew was born in toronto"] * 300))
    for spec in (str(dpr_dir), str(extractive_dir)):
        [answer] = resolve_reader(spec).read("Where was Kevin Drew born?", [long])
        assert answer.answer.lower() in long.text.lower()


def test_model_directory_is_recognised_by_its_config(dpr_dir, extractive_dir):
    assert isinstance(resolve_reader(str(dpr_dir)), DPRReaderModel)
    assert isinstance(resolve_reader(str(extractive_dir)), ExtractiveReader)


def test_extractive_reader_cuts_exact_spans_with_probability_confidence(extractive_dir):
    reader = resolve_reader(f"extractive:{extractive_dir}")
    assert reader.threshold == 0.5
    answers = reader.read("Where was Kevin Drew born?", PASSAGES)
    for answer, passage in zip(answers, PASSAGES, strict=True):
        assert answer.answer in passage.text
        assert 0.0 <= answer.confidence <= 1.0


def test_models_load_once_and_are_shared(dpr_dir):
    first = DPRReaderModel(str(dpr_dir)).load()
    second = DPRReaderModel(str(dpr_dir)).load()
    assert first[1] is second[1]  # the same weights object, not a second copy
    assert resolve_reader(f"dpr:{dpr_dir}") is resolve_reader(f"dpr:{dpr_dir}")


def test_missing_model_says_how_to_fix_it(tmp_path, monkeypatch, connections):
    with pytest.raises(ValueError, match=r"not be loaded: download .* reader llm \(the hub") as no:
        DPRReaderModel("nobody/absent-reader").load()
    assert "pass --reader dpr:DIR, or use --reader llm (the hub" in cli_line(no.value)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ValueError, match="'facebook/dpr-reader-multiset-base' could not be"):
        DPRReaderModel().load()
    # The advice names the spec that was given: the int8 path's own.
    with pytest.raises(ValueError, match=r"pass reader extractive-int8:DIR, or use reader llm"):
        ExtractiveReader(int8=True).load()
    assert connections == []  # offline: not one attempt to reach the hub


def test_a_directory_says_what_it_lacks_not_to_download_it(tmp_path, monkeypatch):
    """A path is never sent to the hub: absent, empty config, no weights each get their line."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ValueError, match=r"^reader model directory \S*absent does not exist$"):
        DPRReaderModel(str(tmp_path / "absent")).load()
    with pytest.raises(ValueError, match=r"^reader \./absent: no such model directory$") as no:
        resolve_reader("./absent")
    assert cli_line(no.value) == "--reader ./absent: no such model directory"
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match=r"file is not a directory$"):
        DPRReaderModel(str(tmp_path / "file")).load()
    for config in ("", "{}", "[1]", '{"model_type": ""}'):
        (tmp_path / "config.json").write_text(config)
        with pytest.raises(ValueError, match=r"holds no config\.json naming a model_type") as e:
            ExtractiveReader(str(tmp_path)).load()
        assert "\n" not in str(e.value)
    (tmp_path / "config.json").write_text('{"model_type": "dpr"}')
    with pytest.raises(
        ValueError, match=r"could not be loaded \(OSError: .*model\.safetensors"
    ) as e:
        DPRReaderModel(str(tmp_path)).load()
    assert "\n" not in str(e.value) and "huggingface-cli" not in str(e.value)


def test_not_a_model_directory(tmp_path):
    (tmp_path / "config.json").write_text("{broken")
    with pytest.raises(ValueError, match=r"no readable config\.json"):
        resolve_reader(str(tmp_path))


def test_unknown_reader_spec():
    with pytest.raises(ValueError, match="unknown reader 'bert': use auto, dpr, extractive, llm"):
        resolve_reader("bert")


@pytest.mark.parametrize("kind", ["dpr", "extractive"])
def test_int8_onnx_readers_match_fp32_spans(kind, dpr_dir, extractive_dir, tmp_path, monkeypatch):
    """The int8 path is an ONNX Runtime session with int8 weights, cached, reading fp32's spans.

    Random tiny models have near-tied span logits, so a few spans may flip; real weights have
    clear margins (the closing note of issue 13 gives the figures on a DPR-sized model).
    """
    require_module("onnxruntime", "onnx")  # the int8 readers
    import onnx

    from searchain import cache
    from searchain.tools.readers.onnx_int8 import OnnxModel, cache_dir

    monkeypatch.setenv("SEARCHAIN_CACHE_DIR", str(tmp_path))
    path = dpr_dir if kind == "dpr" else extractive_dir
    fp32 = resolve_reader(f"{kind}:{path}")
    int8 = resolve_reader(f"{kind}-int8:{path}")
    assert int8 is not fp32 and int8.int8 and not fp32.int8
    _, model = int8.load()
    assert isinstance(model, OnnxModel)
    [entry] = list(cache_dir().iterdir())  # one cache entry, no export leftovers beside it
    graph = onnx.load(str(entry / "model-int8.onnx")).graph
    int8_weights = [t for t in graph.initializer if t.data_type == onnx.TensorProto.INT8]
    assert len(int8_weights) >= 4  # the linear layers' weights are int8
    queries = ["Where was Kevin Drew born?", "Which album did Kevin Drew record?"]
    passages = PASSAGES * 8
    same, total = 0, 0
    for query in queries:
        a, b = fp32.read(query, passages), int8.read(query, passages)
        for x, y in zip(a, b, strict=True):
            total += 1
            same += x.answer == y.answer
            assert y.answer in passages[0].text + passages[1].text or not y.answer
            assert y.confidence == pytest.approx(x.confidence, abs=0.05)
    assert same / total >= 0.9
    # A second process (here: a cleared model cache) loads the cached export, not a new one.
    stamp = (entry / "model-int8.onnx").stat().st_mtime_ns
    cache.clear()
    resolve_reader(f"{kind}-int8:{path}").load()
    assert (entry / "model-int8.onnx").stat().st_mtime_ns == stamp
    assert [p.name for p in cache_dir().iterdir()] == [entry.name]


def test_int8_without_onnx_runtime_names_the_extra(dpr_dir, monkeypatch):
    import sys

    from searchain import cache

    cache.clear()
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    with pytest.raises(ImportError, match=r"pip install 'searchain\[models,onnx\]'"):
        resolve_reader(f"dpr-int8:{dpr_dir}").load()
    with pytest.raises(ValueError, match="dpr-int8"):
        resolve_reader("dpr-int4")


def test_a_reader_path_that_is_a_file_is_named_as_one(tmp_path, monkeypatch):
    """The neighbours of a missing directory: a file given bare or as a path."""
    (tmp_path / "notes.txt").write_text("x")
    monkeypatch.chdir(tmp_path)
    for spec in ("notes.txt", "./notes.txt", str(tmp_path / "notes.txt")):
        with pytest.raises(ValueError, match=r"notes\.txt: is not a directory$"):
            resolve_reader(spec)
