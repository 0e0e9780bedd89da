"""Text to terms.

The tokenizers (``tokenizer``) and their compiled twin for a build (``wordscan``, with
``prefetch``'s cache hints), which must find exactly the same words.
"""
