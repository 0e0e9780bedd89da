"""``python -m searchain`` runs the CLI."""

from searchain.cli import main

main()
