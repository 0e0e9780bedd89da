"""The outside world behind small interfaces: retrieval, readers, LLMs, duplicate detection."""
