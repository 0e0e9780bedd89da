"""Tiny reader models built from a config with random weights, saved to a directory.

No reader weights can be downloaded here; these exercise the real ``from_pretrained`` loading,
tokenisation and span-extraction code paths end to end. Their answers are random but well-formed.
"""

from __future__ import annotations

from pathlib import Path

SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
WORDS = [
    "who",
    "what",
    "where",
    "when",
    "was",
    "is",
    "the",
    "of",
    "in",
    "born",
    "kevin",
    "drew",
    "toronto",
    "spirit",
    "if",
    "performer",
    "album",
    "debut",
    "greyhound",
    "buses",
    "leave",
    "from",
    "coach",
    "terminal",
    "ontario",
    "canada",
    "magazine",
    "started",
    "first",
    "arthur",
    "women",
    "1844",
    "1989",
    "a",
    "an",
    "and",
]


def _vocab() -> dict[str, int]:
    tokens = SPECIAL + WORDS + list("abcdefghijklmnopqrstuvwxyz0123456789.,?'")
    tokens += [f"##{c}" for c in "abcdefghijklmnopqrstuvwxyz0123456789"]
    return {token: i for i, token in enumerate(dict.fromkeys(tokens))}  # ids stay dense


def _bert_kwargs(size: str) -> dict:
    if size == "base":  # DPR's own dimensions: BERT-base
        return {
            "hidden_size": 768,
            "num_hidden_layers": 12,
            "num_attention_heads": 12,
            "intermediate_size": 3072,
        }
    return {
        "hidden_size": 32,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "intermediate_size": 64,
    }


def make_dpr_reader(directory: Path, size: str = "tiny", seed: int = 0) -> Path:
    """Save a random DPR reader (tokenizer + weights) into ``directory``."""
    import torch
    from transformers import DPRConfig, DPRReader, DPRReaderTokenizerFast

    torch.manual_seed(seed)
    tokenizer = DPRReaderTokenizerFast(vocab=_vocab())
    config = DPRConfig(
        vocab_size=tokenizer.vocab_size, max_position_embeddings=512, **_bert_kwargs(size)
    )
    DPRReader(config).save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


def make_extractive_reader(directory: Path, seed: int = 0) -> Path:
    """Save a random BERT question-answering model (tokenizer + weights) into ``directory``."""
    import torch
    from transformers import BertConfig, BertForQuestionAnswering, BertTokenizerFast

    torch.manual_seed(seed)
    tokenizer = BertTokenizerFast(vocab=_vocab())
    config = BertConfig(
        vocab_size=tokenizer.vocab_size, max_position_embeddings=512, **_bert_kwargs("tiny")
    )
    BertForQuestionAnswering(config).save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


NLI_LABELS = {0: "ENTAILMENT", 1: "NEUTRAL", 2: "CONTRADICTION"}


def make_nli_model(
    directory: Path, decides: str | None = None, labels: dict[int, str] = NLI_LABELS
) -> Path:
    """Save a random BERT sequence classifier with NLI labels (tokenizer + weights).

    ``decides`` (a label of ``labels``) biases its classifier so that label always wins, so a
    test knows what the verifier must conclude; ``None`` leaves it random.
    """
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    torch.manual_seed(0)
    tokenizer = BertTokenizerFast(vocab=_vocab())
    config = BertConfig(
        vocab_size=tokenizer.vocab_size,
        max_position_embeddings=512,
        num_labels=len(labels),
        id2label=labels,
        label2id={name: index for index, name in labels.items()},
        **_bert_kwargs("tiny"),
    )
    model = BertForSequenceClassification(config)
    if decides is not None:
        with torch.no_grad():
            model.classifier.bias.fill_(-100.0)
            model.classifier.bias[config.label2id[decides]] = 100.0
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory
