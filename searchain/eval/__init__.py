"""Evaluation: the shared data sets, the pooled retrieval corpus, metrics and runs."""
