"""Graph nodes, one per file; each is a small function ``(state, runtime) -> updates``."""
