"""On AMX CPUs, models load without llama.cpp's extra (AMX) buffer types; elsewhere unchanged."""

from __future__ import annotations

import pytest

from searchain.tools.llms.cpu_buffers import has_amx, plain_cpu_buffers
from tests.conftest import require_module

AMX_CPU = "processor\t: 0\nflags\t\t: fpu sse avx2 avx512f amx_bf16 amx_tile amx_int8\n"
PLAIN_CPU = "processor\t: 0\nflags\t\t: fpu sse avx2 avx512f\nbugs\t\t: amx_tile_in_bugs\n"


@pytest.mark.parametrize(("text", "expected"), [(AMX_CPU, True), (PLAIN_CPU, False)])
def test_has_amx_reads_the_flags_line(tmp_path, text, expected):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(text)
    assert has_amx(str(cpuinfo)) is expected
    assert has_amx(str(tmp_path / "absent")) is False


def test_extra_buffer_types_are_off_only_inside_the_block_on_amx():
    require_module("llama_cpp", "local")
    import llama_cpp.llama_cpp as low

    assert low.llama_model_default_params().use_extra_bufts is True
    with plain_cpu_buffers(amx=True):
        assert low.llama_model_default_params().use_extra_bufts is False
    assert low.llama_model_default_params().use_extra_bufts is True
    with plain_cpu_buffers(amx=False):
        assert low.llama_model_default_params().use_extra_bufts is True
    with pytest.raises(RuntimeError), plain_cpu_buffers(amx=True):
        raise RuntimeError("a failed load")
    assert low.llama_model_default_params().use_extra_bufts is True  # restored
