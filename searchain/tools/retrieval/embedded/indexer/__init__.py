"""Passages into an index.

Encoded on every core (``encode``, ``workers``), the build itself (``build``), and a documents
index brought up to date (``update``).
"""
