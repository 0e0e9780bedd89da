#!/usr/bin/env bash
# The demo question's Tree-of-Reasoning page and its screenshot, for docs/ (README shows it).
#
#   scripts/demo_page.sh     # after `make demo`: writes docs/demo-page.png
#
# It asks make demo's question with make demo's settings (the offline model unless an API key or
# server is set), writes the page with --html, and captures it in headless Chromium
# (scripts/browser.sh installs it). tests/integration/test_page.py runs it into a scratch folder
# (WORK, PNG, BIN), so the script that makes the README's picture is known to work today.
set -euo pipefail
cd "$(dirname "$0")/.."

QUESTION="${QUESTION:-Lorenzo Monaco was influenced by which Italian painter and architect?}"
WORK="${WORK:-.searchain}"
PNG="${PNG:-$PWD/docs/demo-page.png}"
BIN="${BIN:-.venv/bin}"
page="$WORK/demo-page.html"
"$BIN/searchain" index --demo --index "$WORK/demo-index" --overwrite >&2
"$BIN/searchain" ask --index "$WORK/demo-index" --llm "${LLM:-auto}" --reader llm \
  --db "$WORK/demo-page.sqlite" --html "$page" -- "$QUESTION"
scripts/browser.sh >/dev/null
profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
  --disable-component-update --disable-sync --no-first-run --user-data-dir="$profile" \
  --hide-scrollbars --window-size=900,1500 --screenshot="$PNG" \
  "file://$(realpath "$page")" 2>/dev/null
echo "$PNG"
