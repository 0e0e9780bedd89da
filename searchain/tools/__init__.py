"""The outside world behind small interfaces: retrieval backends, reader models, chat models."""
