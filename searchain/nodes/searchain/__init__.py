"""SearChain's nodes (GenerateCoQ, TraverseNodes, Verify, Complete, Trace) and their helpers."""
