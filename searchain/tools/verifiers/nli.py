"""The NLI verifier: a sequence-classification NLI model decides whether a passage entails.

ALCE (Gao et al., EMNLP 2023) judges citations by entailment with an NLI model (their TRUE, a T5
model); here any ``AutoModelForSequenceClassification`` whose config names an ``entailment``
label serves (an MNLI model such as ``microsoft/deberta-large-mnli``, or a directory). As in
ALCE, the premise is ``Title: {title}`` and the passage text on the next line; a step's
hypothesis is its query followed by its answer ("Where was Kevin Drew born? Toronto").
Weights load once, lazily, on the first verdict.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from searchain.cache import load_once
from searchain.errors import SettingError
from searchain.support import Support
from searchain.tools.pretrained import load_pretrained
from searchain.types import Passage

BATCH = 16
"""Pairs per forward pass."""
MAX_LENGTH = 512


def premise(passage: Passage) -> str:
    """A passage as ALCE shows it to its NLI model."""
    return f"Title: {passage.title}\n{passage.text}" if passage.title else passage.text


def entailment_label(id2label: dict[Any, str], model: str) -> int:
    """The class index of ``entailment`` in a model's labels; one line if it has none."""
    for index, name in id2label.items():
        if str(name).lower().startswith("entail"):
            return int(index)
    found = ", ".join(str(name) for name in id2label.values())
    raise SettingError(
        "{model!r} is not an NLI model: its labels ({found}) name no 'entailment'; pass "
        "{verifier} nli:MODEL with a model trained on MNLI or similar, or {verifier} lexical",
        settings=("verifier",),
        model=model,
        found=found,
    )


class NLIVerifier:
    """Entailment by an NLI model (``nli:MODEL``): a verdict is ``stated`` or ``unstated``."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.name = f"nli:{model}"

    def load(self) -> tuple[Any, Any, int]:
        """Load (once per process) and return ``(tokenizer, model, entailment index)``."""
        return load_once(("nli", self.model), self._build)

    def _build(self) -> tuple[Any, Any, int]:
        try:
            from transformers import AutoModelForSequenceClassification, AutoTokenizer
        except ImportError:
            raise ValueError(
                "the NLI verifier runs on PyTorch and transformers: pip install 'searchain[models]'"
            ) from None
        tokenizer = load_pretrained(AutoTokenizer, self.model, kind="NLI")
        model = load_pretrained(AutoModelForSequenceClassification, self.model, kind="NLI")
        return tokenizer, model.eval(), entailment_label(model.config.id2label, self.model)

    def entails(self, pairs: Sequence[tuple[str, str]]) -> list[bool]:
        """For each ``(premise, hypothesis)``: whether the model's top class is entailment."""
        import torch

        tokenizer, model, entailment = self.load()
        found: list[bool] = []
        for start in range(0, len(pairs), BATCH):
            batch = pairs[start : start + BATCH]
            inputs = tokenizer(
                [p for p, _ in batch],
                [h for _, h in batch],
                truncation="only_first",
                max_length=MAX_LENGTH,
                padding=True,
                return_tensors="pt",
            )
            with torch.inference_mode():
                logits = model(**inputs).logits
            found += [int(i) == entailment for i in logits.argmax(dim=-1)]
        return found

    def verdict(
        self,
        passage: Passage,
        query: str,
        answer: str,
        reader_answer: str = "",
        *,
        long_form: bool,
        alpha: float,
    ) -> Support:
        """``stated`` when the passage entails the step (its query and answer), else not."""
        if not answer.strip():
            return "unstated"
        hypothesis = f"{query.strip()} {answer.strip()}".strip()
        return "stated" if self.entails([(premise(passage), hypothesis)])[0] else "unstated"
