"""Retrieval backends: the embedded BM25 index, Elasticsearch, any LangChain retriever."""
