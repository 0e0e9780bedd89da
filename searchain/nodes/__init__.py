"""Graph nodes by method family, one per file: ``(state, runtime) -> updates``."""
