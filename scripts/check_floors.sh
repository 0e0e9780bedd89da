#!/usr/bin/env bash
# The dependency floors pyproject.toml claims, tested: a fresh environment with the lowest allowed
# version of every direct dependency (uv's lowest-direct resolution), then the tests that need no
# PyTorch (the torch-based extras' floors are the versions the main suite runs on).
#
#   scripts/check_floors.sh [PYTEST ARGS...]   # uses .venv/bin/uv (the dev extra installs it)
set -euo pipefail
cd "$(dirname "$0")/.."

UV="${UV:-.venv/bin/uv}"
FLOOR="${FLOOR_VENV:-/tmp/searchain-floor-venv}"
EXTRAS="dev,eval,postgres,elasticsearch,openai,studio"

rm -rf "$FLOOR"
"$UV" venv -q -p python3.11 "$FLOOR"
"$UV" pip install -q -p "$FLOOR/bin/python" --resolution lowest-direct -e ".[$EXTRAS]"
echo "floors installed:" >&2
"$UV" pip list -p "$FLOOR/bin/python" 2>/dev/null | grep -iE "^(langgraph|langchain|bm25s|numpy|scipy|typer|rich|rouge|pystemmer|matplotlib|psycopg|elasticsearch) " >&2
# Without CI=true: the torch-based extras are absent here on purpose, so their tests skip.
env -u CI VIRTUAL_ENV="$FLOOR" PATH="$FLOOR/bin:$PATH" "$FLOOR/bin/python" -m pytest -q -p no:cacheprovider \
  tests/unit tests/integration/test_postgres.py tests/integration/test_studio.py \
  tests/integration/test_elasticsearch.py "$@"
