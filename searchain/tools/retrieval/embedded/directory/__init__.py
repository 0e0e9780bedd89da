"""An index directory.

Its versioned files switched in atomically (``files``), every byte checked against its manifest
before it is read (``checked``), arrays loaded safely from threads (``npy``).
"""
