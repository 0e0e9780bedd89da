"""llama.cpp's CPU buffer types, chosen per machine: loading GGUF models safely on AMX CPUs.

Its own module, free of langchain-community, so that the llama.cpp server a test starts and the
machine check run without the ``local`` extra's chat-model wrapper.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

_PARAMS_LOCK = threading.Lock()


def has_amx(cpuinfo: str = "/proc/cpuinfo") -> bool:
    """Whether this CPU advertises Intel AMX (the ``amx_tile`` flag in ``/proc/cpuinfo``)."""
    try:
        text = Path(cpuinfo).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return any(
        "amx_tile" in line.split(":", 1)[1].split()
        for line in text.splitlines()
        if line.startswith("flags")
    )


@contextmanager
def plain_cpu_buffers(amx: bool | None = None) -> Iterator[None]:
    """Load models, inside this block, without llama.cpp's extra CPU buffer types on AMX CPUs.

    llama.cpp built for an AMX CPU (pip builds it with ``-march=native``) repacks the weights
    into AMX buffers, and its AMX matrix product crashes the process (SIGSEGV at the first
    decode) on some of those machines, virtual ones above all: ggml-org/llama.cpp#20824, seen
    on this project's own machines. llama-cpp-python's ``Llama`` does not expose the switch
    (``use_extra_bufts``), so its default model parameters are replaced for the block, under a
    lock; elsewhere, and on CPUs without AMX, nothing changes.
    """
    if not (has_amx() if amx is None else amx):
        yield
        return
    import llama_cpp.llama_cpp as low

    default = low.llama_model_default_params

    def params() -> Any:
        chosen = default()
        chosen.use_extra_bufts = False
        return chosen

    with _PARAMS_LOCK:
        low.llama_model_default_params = params
        try:
            yield
        finally:
            low.llama_model_default_params = default
