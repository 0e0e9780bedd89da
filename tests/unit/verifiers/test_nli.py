"""The NLI verifier's real loading and inference code, on tiny models built from a config."""

from __future__ import annotations

import pytest

from searchain.tools.verifiers.nli import NLIVerifier, premise
from searchain.tools.verifiers.resolve import resolve_verifier
from searchain.types import Passage
from tests.conftest import cli_line, require_module
from tests.tiny_models import make_nli_model

DREW = Passage("p2", "Kevin Drew", "Kevin Drew was born in Toronto, Ontario.")


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    require_module("transformers", "models")
    root = tmp_path_factory.mktemp("nli")
    return {
        "yes": str(make_nli_model(root / "yes", decides="ENTAILMENT")),
        "no": str(make_nli_model(root / "no", decides="CONTRADICTION")),
        "random": str(make_nli_model(root / "random")),
        "sentiment": str(make_nli_model(root / "sst", labels={0: "NEGATIVE", 1: "POSITIVE"})),
    }


def test_an_entailing_model_states_and_a_contradicting_one_does_not(models):
    yes, no = NLIVerifier(models["yes"]), NLIVerifier(models["no"])
    pairs = [(premise(DREW), "Where was Kevin Drew born? Toronto")] * 20  # two batches
    assert yes.entails(pairs) == [True] * 20 and no.entails(pairs) == [False] * 20
    ask = {"long_form": False, "alpha": 0.35}
    assert yes.verdict(DREW, "Where was Kevin Drew born?", "Toronto", **ask) == "stated"
    assert no.verdict(DREW, "Where was Kevin Drew born?", "Toronto", **ask) == "unstated"
    # It judges what the lexical rule cannot: yes/no, numbers.
    assert yes.verdict(DREW, "Was Kevin Drew born in Toronto?", "yes", **ask) == "stated"
    assert yes.verdict(DREW, "q", "", **ask) == "unstated"  # no answer, nothing stated


def test_a_random_model_still_gives_one_verdict_per_pair(models):
    found = NLIVerifier(models["random"]).entails([("a", "b"), ("c", "d"), ("a", "b")])
    assert len(found) == 3 and found[0] == found[2]


def test_a_model_without_an_entailment_label_is_one_clear_error(models):
    with pytest.raises(ValueError, match=r"is not an NLI model: its labels .* name no"):
        NLIVerifier(models["sentiment"]).entails([("a", "b")])


def test_missing_weights_say_how_to_get_them(tmp_path, monkeypatch):
    require_module("transformers", "models")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(
        ValueError, match=r"NLI model .* could not be loaded.*verifier nli:DIR"
    ) as no:
        NLIVerifier("nobody/absent-nli").load()
    assert cli_line(no.value).endswith("pass --verifier nli:DIR, or use --verifier lexical")
    with pytest.raises(ValueError, match=r"^NLI model directory \S*absent does not exist$"):
        NLIVerifier(str(tmp_path / "absent")).load()


def test_specs_resolve_once_and_bad_ones_are_named(models):
    spec = f"nli:{models['yes']}"
    assert resolve_verifier(spec) is resolve_verifier(spec)
    assert resolve_verifier(spec).name == spec
    assert resolve_verifier("lexical").name == "lexical"
    for bad in ("nli", "nli:", "lexical:x", "entailment"):
        with pytest.raises(ValueError, match="unknown verifier"):
            resolve_verifier(bad)


def test_premises_are_formatted_as_alce_formats_documents():
    assert premise(DREW) == "Title: Kevin Drew\nKevin Drew was born in Toronto, Ontario."
    assert premise(Passage("x", "", "Text.")) == "Text."
