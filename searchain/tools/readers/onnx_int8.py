"""Reader models as int8 ONNX Runtime sessions: several times faster on a CPU than PyTorch fp32.

The PyTorch model is exported to ONNX once, its weights quantized to int8 (ONNX Runtime's dynamic
quantization), and the result cached under ``SEARCHAIN_CACHE_DIR`` (default
``~/.cache/searchain``), keyed by the model's files: later runs load the cached session in a
fraction of a second. The cache entry is written in a temporary directory and renamed into place,
so an interrupted export never leaves a half-written model behind. :class:`OnnxModel` answers the
reader's forward call with the same output fields as the transformers model.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import tempfile
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ONNX_HINT = "the int8 readers run on ONNX Runtime: pip install 'searchain[models,onnx]'"
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
"""Forward arguments, in the order the DPR and BERT-style QA models take them."""


class OnnxModel:
    """An ONNX Runtime session called like the transformers model it was exported from."""

    device = SimpleNamespace(type="cpu")

    def __init__(self, path: Path, inputs: list[str], outputs: Sequence[str]) -> None:
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3  # errors only
        self.session = onnxruntime.InferenceSession(
            str(path), options, providers=["CPUExecutionProvider"]
        )
        self.inputs, self.outputs = inputs, list(outputs)

    def __call__(self, **encoded: Any) -> SimpleNamespace:
        """Run the session on the tokenizer's output; the logits come back as torch tensors."""
        import numpy as np
        import torch

        feed = {name: np.asarray(encoded[name], dtype=np.int64) for name in self.inputs}
        values = self.session.run(self.outputs, feed)
        return SimpleNamespace(
            **{name: torch.from_numpy(v) for name, v in zip(self.outputs, values, strict=True)}
        )


def int8_model(model: Any, tokenizer: Any, source: str, outputs: Sequence[str]) -> OnnxModel:
    """The int8 ONNX version of ``model`` (loaded from ``source``), exported on first use."""
    try:
        import onnx  # noqa: F401  # the quantizer needs it
        import onnxruntime  # noqa: F401
    except ImportError as exc:
        raise ImportError(ONNX_HINT) from exc
    sample = tokenizer("a question", "a passage of text", return_tensors="pt")
    inputs = [name for name in INPUTS if name in sample]
    target = cache_dir() / _key(model, source, inputs) / "model-int8.onnx"
    if not target.is_file():
        _export(model, sample, inputs, outputs, target)
    return OnnxModel(target, inputs, outputs)


def cache_dir() -> Path:
    """Where exported models are kept (``SEARCHAIN_CACHE_DIR``, else ``~/.cache/searchain``)."""
    root = os.environ.get("SEARCHAIN_CACHE_DIR") or Path.home() / ".cache" / "searchain"
    return Path(root) / "onnx"


def _key(model: Any, source: str, inputs: list[str]) -> str:
    """A digest of what determines the export: the model's config and weights, the inputs."""
    import onnxruntime
    import torch

    digest = hashlib.sha256()
    digest.update(f"{source}\0{model.config.to_json_string()}\0{inputs}".encode())
    digest.update(f"{torch.__version__}\0{onnxruntime.__version__}".encode())
    for name, tensor in sorted(model.state_dict().items()):
        digest.update(name.encode())
        digest.update(tensor.detach().contiguous().cpu().numpy().tobytes())
    return digest.hexdigest()[:32]


def _export(
    model: Any, sample: Any, inputs: list[str], outputs: Sequence[str], target: Path
) -> None:
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    target.parent.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".export-", dir=target.parent.parent))
    try:
        fp32 = work / "model.onnx"
        axes = {name: {0: "batch", 1: "tokens"} for name in inputs}
        with warnings.catch_warnings(), torch.inference_mode():
            warnings.simplefilter("ignore")  # the exporter's notes on traced control flow
            torch.onnx.export(
                model,
                tuple(sample[name] for name in inputs),
                str(fp32),
                input_names=inputs,
                output_names=list(outputs),
                dynamic_axes=axes,
                dynamo=False,
            )
        quantized = work / target.name
        logging.disable(logging.WARNING)  # the quantizer's advice, on the root logger
        try:
            quantize_dynamic(str(fp32), str(quantized), weight_type=QuantType.QInt8)
        finally:
            logging.disable(logging.NOTSET)
        fp32.unlink()
        try:
            work.rename(target.parent)  # atomic: the entry appears whole or not at all
        except OSError:  # another process exported the same model first
            if not target.is_file():
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
