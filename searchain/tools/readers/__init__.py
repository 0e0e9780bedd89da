"""Readers: an answer span and a confidence from a passage (DPR, extractive, int8, the LLM)."""
