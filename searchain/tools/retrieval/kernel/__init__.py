"""The embedded index's search: a compiled block-max MaxScore kernel, and how queries run on it."""
