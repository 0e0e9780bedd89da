"""The ASGI app the team server runs: Aegra's, behind :class:`~searchain.server.gate.PreflightGate`.

``scripts/server.sh`` starts ``uvicorn searchain.server.front:app``. Aegra's app builds its
routes into searchain's custom app (``searchain.server.mcp:app``, whose :class:`KeyGate` checks
keys and routes) and wraps it in its own middleware, CORS outermost; only a wrapper of the whole
app sees a preflight before that middleware answers it.
"""

from __future__ import annotations

from aegra_api.main import app as aegra

from searchain.server.gate import PreflightGate

app = PreflightGate(aegra)
"""What uvicorn serves."""
