"""Reader models: extract an answer span and a confidence from a passage, for Verify and Complete.

Two kinds of weights behind one interface (``read(query, passages) -> [ReaderAnswer]``):

* ``dpr`` — the paper's reader, ``DPRReader``; confidence is DPR's relevance logit (θ = 1.5).
* ``extractive`` — any ``AutoModelForQuestionAnswering`` (e.g. a SQuAD 2.0 model); confidence is
  the probability of the best span, P(start)·P(end), where the [CLS] "no answer" position takes
  part in both softmaxes, so an unanswerable passage scores low (default θ = 0.5).

The ``llm`` reader, for deployments with no reader weights, is :mod:`searchain.tools.readers.llm`.
Model weights load once, lazily, on the first read, and are shared by all threads.
"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from searchain.cache import load_once
from searchain.tools.pretrained import load_pretrained
from searchain.tools.readers.batch import PairReader
from searchain.types import Passage, ReaderAnswer

DEFAULT_DPR = "facebook/dpr-reader-multiset-base"
DEFAULT_EXTRACTIVE = "deepset/roberta-base-squad2"
MAX_ANSWER_TOKENS = 16
MODELS_HINT = (
    "the {kind} reader runs on PyTorch and transformers: pip install 'searchain[models]', or "
    "read with the chat model instead (the reader llm, or auto)"
)


def best_span(start: Any, end: Any, allowed: Sequence[int]) -> tuple[int, int, float]:
    """The (start, end, score) maximising ``start[s] + end[e]`` with s ≤ e < s + 16 in ``allowed``.

    ``start``/``end`` are 1-d tensors of logits; ``allowed`` are the token positions that belong
    to the passage text (question, title and padding can never be the answer).
    """
    import torch

    positions = torch.tensor(list(allowed), dtype=torch.long)
    if positions.numel() == 0:
        return 0, 0, float("-inf")
    s, e = start[positions], end[positions]
    scores = s[:, None] + e[None, :]
    n = positions.numel()
    offsets = torch.arange(n)[None, :] - torch.arange(n)[:, None]
    scores = scores.masked_fill((offsets < 0) | (offsets >= MAX_ANSWER_TOKENS), float("-inf"))
    flat = int(torch.argmax(scores))
    i, j = divmod(flat, n)
    return int(positions[i]), int(positions[j]), float(scores[i, j])


def as_in_text(span: str, text: str) -> str:
    """The passage's own spelling of a decoded (lower-cased, re-spaced) span, when found."""
    words = re.findall(r"\w+|[^\w\s]", span.replace("##", ""))
    if not words:
        return ""
    found = re.search(r"\s*".join(map(re.escape, words)), text, re.IGNORECASE)
    return found.group(0) if found else span.strip()


class _TransformersReader(PairReader):
    """A reader backed by a transformers tokenizer and model, loaded once per process.

    ``int8`` runs the model as an int8 ONNX Runtime session (exported once and cached): on a CPU
    several times faster than PyTorch fp32 with the same spans; the confidence scale moves
    slightly, so recheck θ on the real weights.
    """

    threshold: float
    """Default θ on this reader's confidence scale."""
    kind: str
    """The reader spec's name (``--reader KIND:DIR``)."""
    default_model: str
    """Model used when no name or path is given."""
    outputs: tuple[str, ...]
    """The model's output fields the reader uses (what an int8 export must keep)."""

    def __init__(
        self,
        name_or_path: str | None = None,
        *,
        max_length: int = 384,
        int8: bool = False,
        batch_size: int | None = None,
    ) -> None:
        self.name_or_path = name_or_path or self.default_model
        self.max_length = max_length
        self.int8 = int8
        self.batch_size = batch_size  # pairs per forward pass; None: 1 on a CPU, 16 on a GPU

    def load(self) -> tuple[Any, Any]:
        """Load (once per process) and return ``(tokenizer, model)``."""
        return load_once((type(self).__name__, self.name_or_path, self.int8), self._build)

    def _build(self) -> tuple[Any, Any]:
        try:
            import torch  # noqa: F401  # read() needs it; say so before loading anything

            tokenizer_class, model_class = self._classes()
        except ImportError as exc:
            named = "DPR" if isinstance(self, DPRReaderModel) else "extractive"
            raise ImportError(MODELS_HINT.format(kind=named)) from exc
        spec = self.kind + "-int8" * self.int8  # what the advice names: the reader SPEC:DIR
        tokenizer = load_pretrained(tokenizer_class, self.name_or_path, spec=spec)
        model = load_pretrained(model_class, self.name_or_path, spec=spec).eval()
        if self.int8:
            from searchain.tools.readers.onnx_int8 import int8_model

            model = int8_model(model, tokenizer, self.name_or_path, self.outputs)
        return tokenizer, model

    def _classes(self) -> tuple[Any, Any]:
        raise NotImplementedError

    def read_pairs(self, queries: Sequence[str], passages: Sequence[Passage]) -> list[ReaderAnswer]:
        """Read the pairs in forward passes of ``batch_size`` (one pair at a time on a CPU).

        On a CPU a padded batch costs more per passage than passages one by one (measured with
        a DPR-sized reader); an accelerator wants batches.
        """
        _, model = self.load()
        size = self.batch_size or (1 if model.device.type == "cpu" else 16)
        answers: list[ReaderAnswer] = []
        for i in range(0, len(passages), size):
            answers += self._read_batch(queries[i : i + size], passages[i : i + size])
        return answers

    def _read_batch(
        self, queries: Sequence[str], passages: Sequence[Passage]
    ) -> list[ReaderAnswer]:
        raise NotImplementedError


class DPRReaderModel(_TransformersReader):
    """The DPR reader (Karpukhin et al. 2020) as SearChain uses it."""

    threshold = 1.5
    kind = "dpr"
    default_model = DEFAULT_DPR
    outputs = ("start_logits", "end_logits", "relevance_logits")

    def _classes(self) -> tuple[Any, Any]:
        from transformers import DPRReader, DPRReaderTokenizerFast

        return DPRReaderTokenizerFast, DPRReader

    def _read_batch(
        self, queries: Sequence[str], passages: Sequence[Passage]
    ) -> list[ReaderAnswer]:
        if not passages:
            return []
        tokenizer, model = self.load()
        import torch

        with warnings.catch_warnings():
            # DPR's tokenizer pads the question/title part without truncation and warns that
            # max_length is unused there; the text part is truncated as asked.
            warnings.filterwarnings("ignore", message=".*max_length. is ignored")
            encoded = tokenizer(
                questions=list(queries),
                titles=[p.title for p in passages],
                texts=[p.text for p in passages],
                padding=True,
                truncation=True,
                max_length=self.max_length,
                return_tensors="pt",
            )
        with torch.inference_mode():
            out = model(**encoded)
        answers = []
        for i in range(len(passages)):
            ids = encoded["input_ids"][i].tolist()
            seps = [k for k, t in enumerate(ids) if t == tokenizer.sep_token_id]
            # [CLS] question [SEP] title [SEP] text [PAD]...: the answer lies in the text.
            text_start = seps[1] + 1 if len(seps) > 1 else 1
            text_end = int(encoded["attention_mask"][i].sum())
            if text_end and ids[text_end - 1] == tokenizer.sep_token_id:
                text_end -= 1
            s, e, _ = best_span(out.start_logits[i], out.end_logits[i], range(text_start, text_end))
            span = tokenizer.decode(ids[s : e + 1], skip_special_tokens=True)
            answers.append(
                ReaderAnswer(as_in_text(span, passages[i].text), float(out.relevance_logits[i]))
            )
        return answers


class ExtractiveReader(_TransformersReader):
    """Any extractive QA model (``AutoModelForQuestionAnswering``)."""

    threshold = 0.5
    kind = "extractive"
    default_model = DEFAULT_EXTRACTIVE
    outputs = ("start_logits", "end_logits")

    def _classes(self) -> tuple[Any, Any]:
        from transformers import AutoModelForQuestionAnswering, AutoTokenizer

        return AutoTokenizer, AutoModelForQuestionAnswering

    def _read_batch(
        self, queries: Sequence[str], passages: Sequence[Passage]
    ) -> list[ReaderAnswer]:
        """Spans are cut from the text by character offsets."""
        if not passages:
            return []
        tokenizer, model = self.load()
        import torch

        texts = [p.text for p in passages]
        encoded = tokenizer(
            list(queries),
            texts,
            padding=True,
            truncation="only_second",
            max_length=self.max_length,
            return_offsets_mapping=True,
            return_tensors="pt",
        )
        offsets = encoded.pop("offset_mapping")
        with torch.inference_mode():
            out = model(**encoded)
        answers = []
        for i, text in enumerate(texts):
            context = [k for k, sid in enumerate(encoded.sequence_ids(i)) if sid == 1]
            allowed = [0, *context]  # the [CLS] position competes as "no answer"
            start = torch.log_softmax(out.start_logits[i][allowed], dim=-1)
            end = torch.log_softmax(out.end_logits[i][allowed], dim=-1)
            full_start = torch.full_like(out.start_logits[i], float("-inf"))
            full_end = torch.full_like(out.end_logits[i], float("-inf"))
            full_start[allowed], full_end[allowed] = start, end
            s, e, score = best_span(full_start, full_end, context)
            span = text[int(offsets[i][s][0]) : int(offsets[i][e][1])].strip() if context else ""
            answers.append(ReaderAnswer(span, float(torch.exp(torch.tensor(score)))))
        return answers


def reader_kind(path: str) -> str:
    """``dpr`` or ``extractive`` for a model directory, from its ``config.json``."""
    config = Path(path) / "config.json"
    try:
        model_type = json.loads(config.read_text()).get("model_type")
    except (OSError, json.JSONDecodeError):
        raise ValueError(f"{path} holds no readable config.json: not a reader model") from None
    return "dpr" if model_type == "dpr" else "extractive"
