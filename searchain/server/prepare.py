"""Prepare the server's PostgreSQL database once, before its worker processes start.

Each Aegra worker migrates the database, creates LangGraph's checkpoint and store tables and the
graphs' default assistants as it starts; several workers starting together on an empty database
race each other and one dies ("duplicate key value violates unique constraint").
``scripts/server.sh`` runs this first, so the workers find everything in place:
``python -m searchain.server.prepare`` with ``$DATABASE_URL``, in the server's environment (where
aegra-api is installed). It also reads the deployment's settings (``SEARCHAIN_*``, its prompt
file) as the workers will, so a broken one stops the start in one line.
"""

from __future__ import annotations

import asyncio
import os
import sys

from searchain.redact import redact_url
from searchain.server.settings import deployment


def reachable(url: str) -> None:
    """Exit in one line when PostgreSQL at ``url`` cannot be reached."""
    import psycopg

    try:
        psycopg.connect(url, connect_timeout=10).close()
    except psycopg.Error as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        sys.exit(
            f"error: cannot reach PostgreSQL at {redact_url(url)} ({reason}): start it, "
            "or set DATABASE_URL"
        )


def create_tables() -> None:
    """Aegra's own start-up steps, once, and the tables of searchain's fair share and uploads.

    Aegra's steps: migrations, LangGraph's tables, the default assistants.
    """
    from aegra_api.core.database import db_manager
    from aegra_api.core.migrations import run_migrations
    from aegra_api.services.langgraph_service import get_langgraph_service

    async def langgraph_tables() -> None:
        await db_manager.initialize()
        try:
            await get_langgraph_service().initialize()
        finally:
            await db_manager.close()

    run_migrations()  # runs its own event loop
    asyncio.run(langgraph_tables())
    import psycopg

    from searchain.server import fair_share, uploads

    with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as conn:
        for statement in f"{fair_share.TABLE};{uploads.TABLE}".split(";"):  # searchain's ledgers
            conn.execute(statement)


def main() -> None:
    """Check the deployment's settings and that the database is reachable; create its tables."""
    url = os.environ.get("DATABASE_URL", "")
    if not url:
        sys.exit("error: DATABASE_URL is not set: point it at the server's PostgreSQL database")
    try:
        deployment()
    except ValueError as exc:
        sys.exit(f"error: {exc}")
    reachable(url)
    create_tables()


if __name__ == "__main__":
    main()
