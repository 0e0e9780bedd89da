"""Top-k BM25 over the postings.

The compiled block-max MaxScore kernel (``lists``, ``norms``, ``maxscore``, ``topk``), the NumPy
search a fresh process uses while it loads (``first``), and the exhaustive scorer every faster
one is tested against (``exhaustive``).
"""
