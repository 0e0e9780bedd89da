#!/usr/bin/env bash
# The dependency floors pyproject.toml claims, tested: a fresh environment with the lowest allowed
# version of every direct dependency of the core and of the extras in EXTRAS (uv's lowest-direct
# resolution), then every test those need. The extras in ABSENT are not floor-tested (PyTorch and
# a llama.cpp build each cost minutes): the main suite runs them at the versions pip resolves, and
# README.md says so. Under CI=true only tests needing an ABSENT extra may skip; any other fails.
#
#   scripts/check_floors.sh [PYTEST ARGS...]   # uses .venv/bin/uv (the dev extra installs it)
set -euo pipefail
cd "$(dirname "$0")/.."

UV="${UV:-.venv/bin/uv}"
FLOOR="${FLOOR_VENV:-/tmp/searchain-floor-venv}"
EXTRAS="dev,eval,postgres,elasticsearch,openai,studio,documents"
ABSENT="models,onnx,local,semantic,dev-llm"

rm -rf "$FLOOR"
"$UV" venv -q -p python3.11 "$FLOOR"
"$UV" pip install -q -p "$FLOOR/bin/python" --resolution lowest-direct -e ".[$EXTRAS]"
echo "floors installed:" >&2
"$UV" pip list -p "$FLOOR/bin/python" 2>/dev/null | grep -iE "^(langgraph|langchain|bm25s|numpy|scipy|typer|rich|rouge|pystemmer|matplotlib|psycopg|elasticsearch|pypdfium2|lxml|python-docx|pypdf) " >&2
# numba's compiled kernels are cached beside the sources (__pycache__) for the main environment's
# numba; the floors' older numba keeps its own, or its processes load the newer one's bitcode
# ("LLVM bitcode parsing error") when two workers race to replace the cache.
SEARCHAIN_ABSENT_EXTRAS="$ABSENT" VIRTUAL_ENV="$FLOOR" NUMBA_CACHE_DIR="$FLOOR/numba-cache" PATH="$FLOOR/bin:$PATH" \
  "$FLOOR/bin/python" -m pytest -q -rs -p no:cacheprovider \
  tests/unit tests/integration/test_postgres.py tests/integration/test_studio.py \
  tests/integration/test_elasticsearch.py "$@"
