"""The postings.

Grouped by term (``grouping``), built out of core in segments (``segments``), bit-packed in
blocks of 128 (``codec``), written (``writer``) and mapped on open (``compact``).
"""
