"""The Elasticsearch backend: an index (alias) searchain builds, updates and searches on a cluster.

``retriever`` searches and builds (:class:`.retriever.ElasticRetriever`), ``client`` reaches the
cluster (:class:`.client.ElasticSettings`), ``bulk`` sends passages in bulk, ``physical`` names and
swaps the physical indexes behind the alias, ``documents`` keeps a documents index's records, and
``update`` brings one up to date.
"""
