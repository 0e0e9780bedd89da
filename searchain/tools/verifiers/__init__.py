"""Verifiers: whether a passage states a step's answer (the verdict on its citations).

``lexical`` (the offline default, :mod:`searchain.support`) and ``nli:MODEL``, any
sequence-classification NLI model, which also decides ALCE's citation figures.
"""
