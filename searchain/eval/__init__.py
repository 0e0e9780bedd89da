"""Evaluation: the pooled retrieval corpus, runs of every method, and the paper's tables."""
