"""Retrieval: the two index backends behind the Retriever protocol, and what ties them to the agent.

``embedded/`` is the BM25 engine searchain ships (an index on disk, no server), ``elastic/`` the
Elasticsearch backend, ``corpus/`` the corpus readers both build from; ``backends.py`` puts both
behind one set of verbs. The glue: ``resolve.py`` (a spec to a retriever), ``batch.py`` (many
queries at once), ``langchain.py`` (any LangChain retriever), ``uploaded.py`` (a thread's own
files), ``fields.py`` (a returned document's fields by dotted path).
"""
