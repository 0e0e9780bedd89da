"""Corpora as passages, read for either backend.

The formats corpora ship in (``readers``), the records parsed from runs of raw bytes (``rows``)
in compiled code (``rowscan``, ``tsvscan``).
"""
