"""The term dictionary.

The index's vocabulary on disk, mapped rather than parsed.
"""
