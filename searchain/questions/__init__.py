"""A data set's question and how an answer to it is scored: what methods and evaluation share.

Below both :mod:`searchain.methods` (DSP keeps the demonstrations it answers right) and
:mod:`searchain.eval` (the paper's tables), so neither imports the other.
"""
