"""A cache hint for compiled loops that look up tables far larger than the cache, one key at a time.

A lookup whose address depends on the one before it (a hash slot, then the entry it names, then
that entry's text) waits on each cache miss in turn, and the processor cannot run far enough
ahead to overlap the next key's. :func:`prefetch` issues the load for a key some steps ahead as
a hint: the data is on its way when the loop reaches it, and nothing the loop computes changes.
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def prefetch(typingctx: Any, array: Any, index: Any) -> Any:
    """Bring ``array[index]`` into the caches ahead of its use (LLVM's ``llvm.prefetch``).

    A hint only: no value is read into the program, an index past the end cannot fault, and a
    processor without the instruction ignores it.
    """
    if not isinstance(array, types.Array) or not isinstance(index, types.Integer):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        array_type = signature.args[0]
        view = context.make_array(array_type)(context, builder, args[0])
        address = cgutils.get_item_pointer(context, builder, array_type, view, [args[1]])
        byte = builder.bitcast(address, ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        # The intrinsic's name carries its pointer's type: LLVM's opaque "ptr" or typed "i8*".
        name = "llvm.prefetch.p0" if str(byte.type) == "ptr" else "llvm.prefetch.p0i8"
        kind = ir.FunctionType(ir.VoidType(), [byte.type, i32, i32, i32])
        fetch = cgutils.get_or_insert_function(builder.module, kind, name)
        read, every_level, data = (ir.Constant(i32, v) for v in (0, 3, 1))
        builder.call(fetch, [byte, read, every_level, data])
        return context.get_dummy_value()

    return types.void(array, index), codegen
