"""The passages an index returns.

Compressed in small blocks read one at a time (``passages``), their JSON lines written in
compiled code at build time (``lines``).
"""
