"""What the reader ``auto`` means in this environment: DPR where it can run, else the LLM.

The paper's reader is DPR. It needs PyTorch and transformers (the ``models`` extra) and its
weights on this machine; nothing is downloaded to decide. Where either is missing, the chat
model reads (the ``llm`` reader), so a default is always something the installed extras can run.
The choice is made from what is installed, never from a failed load: the same environment always
gives the same reader, and the run says which and why (:func:`auto_reader`).
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass

from searchain.tools.readers.models import DEFAULT_DPR

MODELS_PACKAGES = ("torch", "transformers")
"""The ``models`` extra's packages the DPR reader imports."""


@dataclass(frozen=True)
class AutoReader:
    """The reader ``auto`` stands for here, and the reason, as the run's first line gives it."""

    spec: str
    """``dpr`` or ``llm``."""
    why: str
    """Why that one, naming what would change it."""

    def line(self) -> str:
        """One line for the run's start: ``reader: llm (auto: ...)``."""
        return f"reader: {self.spec} (auto: {self.why})"


def auto_reader() -> AutoReader:
    """DPR when the ``models`` extra and the DPR weights are both here, else the LLM reader."""
    missing = [name for name in MODELS_PACKAGES if importlib.util.find_spec(name) is None]
    if missing:
        return AutoReader(
            "llm",
            f"{' and '.join(missing)} not installed; for the paper's DPR reader, "
            "pip install 'searchain[models]' and its weights",
        )
    if not _cached(DEFAULT_DPR):
        return AutoReader(
            "llm",
            f"the DPR weights {DEFAULT_DPR} are not on this machine; fetch them where the "
            f"Hugging Face hub is reachable (huggingface-cli download {DEFAULT_DPR})",
        )
    return AutoReader("dpr", f"the models extra and {DEFAULT_DPR} are installed")


def _cached(repo: str) -> bool:
    """Whether ``repo``'s weights are in the Hugging Face cache (no network is asked)."""
    from huggingface_hub import try_to_load_from_cache

    return isinstance(try_to_load_from_cache(repo, "config.json"), str) and any(
        isinstance(try_to_load_from_cache(repo, name), str)
        for name in ("model.safetensors", "pytorch_model.bin")
    )
